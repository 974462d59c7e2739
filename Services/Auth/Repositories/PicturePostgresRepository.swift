import AuthContract
import Contracts
import Envelope
import Foundation
import Media
import PostgresNIO
import PostgresSupport

/// `auth.pictures`: which kept image is each account's profile picture. Every method runs on the
/// caller's connection, inside the caller's transaction.
struct PicturePostgresRepository: Sendable {
    let database: Database
    let media: MediaLibrary

    /// Makes `image` the account's picture; the one it replaces is deleted with its files.
    func save(account: UUID, image: ProcessedImage, on connection: PostgresConnection) async throws -> Auth.PictureInfo {
        try await lock(account, on: connection)
        let previous = try await current(of: account, on: connection)
        let record = try await media.keep(image, account: account, on: connection)
        let now = database.now()
        try await link(account, to: record.id, at: now, on: connection)
        if let previous { try await media.delete([previous], on: connection) }
        return Self.info(record.full, updatedAt: now)
    }

    /// The kept image of the account's picture, if one is set.
    func picture(of account: UUID, on connection: PostgresConnection) async throws -> MediaRecord? {
        guard let id = try await current(of: account, on: connection) else { return nil }
        return try await media.record(id, on: connection)
    }

    func delete(account: UUID, on connection: PostgresConnection) async throws -> Bool {
        try await lock(account, on: connection)
        guard let id = try await current(of: account, on: connection) else { return false }
        try await media.delete([id], on: connection)  // the pictures row goes with it (ON DELETE CASCADE)
        return true
    }

    /// Re-encodes up to `limit` pictures kept before the media store (checked by their header only,
    /// metadata and all) into kept images; a file that no longer passes is dropped (the account shows
    /// its default picture). Returns how many were moved or dropped.
    func moveLegacy(limit: Int = 20, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            "SELECT account_id, media_type, content FROM legacy_pictures LIMIT \(limit) FOR UPDATE SKIP LOCKED", logger: database.logger)
        var legacy: [(UUID, String, Data)] = []
        for try await row in rows.decode((UUID, String, Data).self) { legacy.append(row) }
        for (account, mediaType, content) in legacy {
            try await lock(account, on: connection)  // an upload at once waits, so this one cannot overwrite it
            if try await current(of: account, on: connection) == nil, let image = try await Self.passing({ try await media.process(content, mediaType: mediaType) }) {
                try await link(account, to: try await media.keep(image, account: account, on: connection).id, at: database.now(), on: connection)
            }
            try await connection.query("DELETE FROM legacy_pictures WHERE account_id = \(account)", logger: database.logger)
        }
        return legacy.count
    }

    /// The image, or nil when the file is refused (`invalid`); any other failure (libvips missing)
    /// fails the round, which keeps the rows for the next.
    private static func passing(_ processing: () async throws -> ProcessedImage) async throws -> ProcessedImage? {
        do {
            return try await processing()
        } catch let error as OperationError where error.code == .invalid {
            return nil
        }
    }

    /// Holds the account's picture for the transaction: two uploads at once replace it one after the
    /// other, and neither leaves its image behind unreferenced.
    private func lock(_ account: UUID, on connection: PostgresConnection) async throws {
        try await database.lockForTransaction("pictures/" + account.uuidString, on: connection)
    }

    /// Makes the kept image `media` the account's picture.
    private func link(_ account: UUID, to media: UUID, at now: Date, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO pictures (account_id, media_id, updated_at) VALUES (\(account), \(media), \(now))
            ON CONFLICT (account_id) DO UPDATE SET media_id = excluded.media_id, updated_at = excluded.updated_at
            """,
            logger: database.logger)
    }

    private func current(of account: UUID, on connection: PostgresConnection) async throws -> UUID? {
        for try await id in try await connection.query("SELECT media_id FROM pictures WHERE account_id = \(account)", logger: database.logger).decode(UUID.self) {
            return id
        }
        return nil
    }

    static func info(_ file: MediaRecord.File, updatedAt: Date) -> Auth.PictureInfo {
        .init(mediaType: file.mediaType, width: file.width, height: file.height, size: file.size, updatedAt: updatedAt)
    }
}
