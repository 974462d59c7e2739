import Bus
import Envelope
import Foundation
import HouseholdContract
import Media
import PostgresNIO
import PostgresSupport

/// `household.photos`: which kept images (the kit's media store) belong to which household, who
/// uploaded them and what names them.
struct PhotoStore: Sendable {
    let database: Database
    let media: MediaLibrary

    /// What a photo can be attached to.
    enum Owner: String, Sendable {
        case turn, bill, post
    }

    struct Row: Sendable {
        let record: MediaRecord
        let household: UUID
        let uploadedBy: UUID
        let attached: (owner: Owner, id: UUID)?

        var view: Household.Photo {
            Household.Photo(
                id: HouseholdStore.text(record.id), mediaType: record.full.mediaType, width: record.full.width, height: record.full.height,
                size: record.full.size, uploadedBy: HouseholdStore.text(uploadedBy), createdAt: record.createdAt)
        }
    }

    /// Keeps `image` for `household`, uploaded by `member` (of `account`).
    func keep(_ image: ProcessedImage, in household: UUID, by member: UUID, account: UUID, on connection: PostgresConnection) async throws -> Row {
        let record = try await media.keep(image, account: account, on: connection)
        try await connection.query(
            "INSERT INTO photos (media_id, household_id, uploaded_by, created_at) VALUES (\(record.id), \(household), \(member), \(record.createdAt))",
            logger: database.logger)
        return Row(record: record, household: household, uploadedBy: member, attached: nil)
    }

    func photo(_ id: UUID, of household: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> Row? {
        let rows = try await connection.query(
            """
            SELECT uploaded_by, attached_to, attached_id FROM photos WHERE media_id = \(id) AND household_id = \(household)
            \(unescaped: locking ? "FOR UPDATE" : "")
            """,
            logger: database.logger)
        for try await (uploader, owner, attachedID) in rows.decode((UUID, String?, UUID?).self) {
            guard let record = try await media.record(id, on: connection) else { return nil }
            let attached = owner.flatMap(Owner.init(rawValue:)).flatMap { owner in attachedID.map { (owner: owner, id: $0) } }
            return Row(record: record, household: household, uploadedBy: uploader, attached: attached)
        }
        return nil
    }

    /// Whether the photo shows a post that expired (it is then gone with the post, before the prune).
    func showsExpiredPost(_ photo: Row, on connection: PostgresConnection) async throws -> Bool {
        guard let attached = photo.attached, attached.owner == .post else { return false }
        return try await connection.query(
            "SELECT 1 FROM posts WHERE id = \(attached.id) AND (expires_at IS NULL OR expires_at > \(database.now()))", logger: database.logger
        ).collect().isEmpty
    }

    /// Names `ids` (photos of `household` that nothing else names) by `owner`; `invalid` naming
    /// `field` for one that is not such a photo.
    func attach(_ ids: [UUID], to owner: Owner, _ ownerID: UUID, in household: UUID, field: String, on connection: PostgresConnection) async throws {
        for (index, id) in ids.enumerated() {
            let name = ids.count == 1 && !field.hasSuffix("s") ? field : "\(field)[\(index)]"
            guard let photo = try await photo(id, of: household, locking: true, on: connection) else {
                throw OperationError.invalid(field: name, "is not a photo of the household")
            }
            if let attached = photo.attached, attached.owner != owner || attached.id != ownerID {
                throw OperationError.invalid(field: name, "shows something else already")
            }
        }
        try await connection.query(
            "UPDATE photos SET attached_to = \(owner.rawValue), attached_id = \(ownerID) WHERE media_id = ANY(\(ids))", logger: database.logger)
    }

    /// The photos `owner` names, oldest first.
    func attached(to owner: Owner, _ ids: [UUID], on connection: PostgresConnection) async throws -> [UUID: [UUID]] {
        guard !ids.isEmpty else { return [:] }
        return try await connection.query(
            "SELECT attached_id, media_id FROM photos WHERE attached_to = \(owner.rawValue) AND attached_id = ANY(\(ids)) ORDER BY created_at, media_id",
            logger: database.logger
        ).decode((UUID, UUID).self).reduce(into: [:]) { $0[$1.0, default: []].append($1.1) }
    }

    /// Deletes the photos `owner` names (their images too), but `keeping`.
    func deleteAttached(to owner: Owner, _ ownerID: UUID, keeping: [UUID] = [], on connection: PostgresConnection) async throws {
        try await deleteAttached(to: owner, [ownerID], keeping: keeping, on: connection)
    }

    /// Deletes the photos any of `owners` names (their images too), but `keeping`.
    func deleteAttached(to owner: Owner, _ owners: [UUID], keeping: [UUID] = [], on connection: PostgresConnection) async throws {
        guard !owners.isEmpty else { return }
        let ids = try await connection.query(
            "SELECT media_id FROM photos WHERE attached_to = \(owner.rawValue) AND attached_id = ANY(\(owners)) AND NOT media_id = ANY(\(keeping))",
            logger: database.logger
        ).decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
        try await media.delete(ids, on: connection)
    }

    /// Deletes every photo of `household` (before the household goes: its images are not cascaded).
    func deleteAll(of household: UUID, on connection: PostgresConnection) async throws {
        let ids = try await connection.query("SELECT media_id FROM photos WHERE household_id = \(household)", logger: database.logger)
            .decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
        try await media.delete(ids, on: connection)
    }

    /// Deletes photos nothing named within a day of their upload; returns how many.
    func pruneUnattached(on connection: PostgresConnection) async throws -> Int {
        let ids = try await connection.query(
            """
            SELECT media_id FROM photos WHERE attached_to IS NULL AND created_at < \(database.ago(.seconds(86_400)))
            LIMIT 500 FOR UPDATE SKIP LOCKED
            """,
            logger: database.logger
        ).decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
        try await media.delete(ids, on: connection)
        return ids.count
    }
}
