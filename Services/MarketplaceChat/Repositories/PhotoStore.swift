import Envelope
import Foundation
import Media
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.photos`: which kept images (the kit's media store) who uploaded, and which
/// listing shows each, in order.
struct PhotoStore: Sendable {
    let database: Database
    let media: MediaLibrary

    struct Row: Sendable {
        let record: MediaRecord
        let uploadedBy: UUID
        let listing: UUID?
    }

    func keep(_ image: ProcessedImage, by account: UUID, on connection: PostgresConnection) async throws -> MediaRecord {
        let record = try await media.keep(image, account: account, on: connection)
        try await connection.query(
            "INSERT INTO photos (media_id, uploaded_by, created_at) VALUES (\(record.id), \(account), \(record.createdAt))", logger: database.logger)
        return record
    }

    func photo(_ id: UUID, on connection: PostgresConnection) async throws -> Row? {
        let rows = try await connection.query("SELECT uploaded_by, listing_id FROM photos WHERE media_id = \(id)", logger: database.logger)
        for try await (uploader, listing) in rows.decode((UUID, UUID?).self) {
            guard let record = try await media.record(id, on: connection) else { return nil }
            return Row(record: record, uploadedBy: uploader, listing: listing)
        }
        return nil
    }

    /// Puts `photos` on `listing` in their order; those it showed before and no longer does are
    /// deleted. Each must be the seller's upload, loose or on this listing already; `invalid`
    /// naming `field` otherwise.
    func attach(_ photos: [UUID], to listing: UUID, seller: UUID, field: String, on connection: PostgresConnection) async throws {
        let rows = try await connection.query(
            """
            SELECT media_id FROM photos WHERE media_id = ANY(\(photos)) AND uploaded_by = \(seller) AND (listing_id IS NULL OR listing_id = \(listing))
            FOR UPDATE
            """,
            logger: database.logger)
        let usable = try await rows.decode(UUID.self).reduce(into: Set<UUID>()) { $0.insert($1) }
        guard usable.count == photos.count else {
            throw OperationError.invalid(field: field, "must name photos you uploaded that no other listing shows")
        }
        let dropped = try await connection.query(
            "SELECT media_id FROM photos WHERE listing_id = \(listing) AND NOT media_id = ANY(\(photos))", logger: database.logger)
        try await media.delete(try await dropped.decode(UUID.self).reduce(into: []) { $0.append($1) }, on: connection)
        try await connection.query("UPDATE photos SET listing_id = NULL, position = NULL WHERE listing_id = \(listing)", logger: database.logger)
        for (position, photo) in photos.enumerated() {
            try await connection.query(
                "UPDATE photos SET listing_id = \(listing), position = \(position) WHERE media_id = \(photo)", logger: database.logger)
        }
    }

    /// Deletes the photos of `listing`.
    func deletePhotos(of listing: UUID, on connection: PostgresConnection) async throws {
        let rows = try await connection.query("SELECT media_id FROM photos WHERE listing_id = \(listing)", logger: database.logger)
        try await media.delete(try await rows.decode(UUID.self).reduce(into: []) { $0.append($1) }, on: connection)
    }

    /// Deletes every photo `account` uploaded; how many.
    func deleteUploads(of account: UUID, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("SELECT media_id FROM photos WHERE uploaded_by = \(account)", logger: database.logger)
        let ids = try await rows.decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
        try await media.delete(ids, on: connection)
        return ids.count
    }

    /// Deletes uploads no listing named within a day of their upload; how many.
    func pruneLoose(on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            SELECT media_id FROM photos WHERE listing_id IS NULL AND created_at < \(database.later(.seconds(-86_400))) LIMIT 500
            FOR UPDATE SKIP LOCKED
            """,
            logger: database.logger)
        let ids = try await rows.decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
        try await media.delete(ids, on: connection)
        return ids.count
    }
}
