import AuthContract
import Contracts
import Foundation
import PostgresNIO
import PostgresSupport

/// `auth.pictures`: one checked profile picture per account. Every method runs on the caller's
/// connection, inside the caller's transaction.
struct PicturePostgresRepository: Sendable {
    let database: Database

    func save(account: UUID, facts: ImageFacts, content: Data, on connection: PostgresConnection) async throws -> Auth.PictureInfo {
        let rows = try await connection.query(
            """
            INSERT INTO pictures (account_id, media_type, content, width, height)
            VALUES (\(account), \(facts.mediaType), \(content), \(facts.width), \(facts.height))
            ON CONFLICT (account_id) DO UPDATE SET media_type = excluded.media_type, content = excluded.content,
                width = excluded.width, height = excluded.height, updated_at = \(database.now())
            RETURNING updated_at
            """,
            logger: database.logger)
        var updated = Date()
        for try await value in rows.decode(Date.self) { updated = value }
        return Auth.PictureInfo(mediaType: facts.mediaType, width: facts.width, height: facts.height, size: content.count, updatedAt: updated)
    }

    func picture(of account: UUID, on connection: PostgresConnection) async throws -> Auth.Picture.Get.Response? {
        let rows = try await connection.query(
            "SELECT media_type, width, height, content, updated_at FROM pictures WHERE account_id = \(account)", logger: database.logger)
        for try await (mediaType, width, height, content, updated) in rows.decode((String, Int, Int, Data, Date).self) {
            return .init(info: .init(mediaType: mediaType, width: width, height: height, size: content.count, updatedAt: updated), content: content)
        }
        return nil
    }

    func delete(account: UUID, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query("DELETE FROM pictures WHERE account_id = \(account) RETURNING 1", logger: database.logger).collect().count > 0
    }
}
