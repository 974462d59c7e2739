import Bus
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport

/// `household.posts` and their comments. Every read of a post leaves it out once it expired.
struct BoardStore: Sendable {
    let database: Database
    let photos: PhotoStore

    struct Values: Sendable, Equatable {
        var title: String
        var description: String?
        var pinned: Bool
        var expiresAt: Date?
    }

    struct Row: Sendable {
        let id: UUID
        let author: UUID
        let values: Values
        let view: Household.Post
        /// Orders the board, pinned first, then the newest: the page key.
        let key: Int64
    }

    /// A pinned post's page key is above every unpinned one's.
    private static let key = "(CASE WHEN p.pinned THEN 4611686018427387904 ELSE 0 END + p.seq)"

    func create(_ values: Values, in household: UUID, by member: UUID, on connection: PostgresConnection) async throws -> UUID {
        let id = UUID(), now = database.now()
        try await connection.query(
            """
            INSERT INTO posts (id, household_id, author, title, description, pinned, expires_at, created_at, updated_at)
            VALUES (\(id), \(household), \(member), \(values.title), \(values.description), \(values.pinned), \(values.expiresAt), \(now), \(now))
            """,
            logger: database.logger)
        return id
    }

    @discardableResult
    func update(_ id: UUID, version: Int, to values: Values, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(
            """
            UPDATE posts SET title = \(values.title), description = \(values.description), pinned = \(values.pinned), expires_at = \(values.expiresAt),
                updated_at = \(database.now()), version = version + 1
            WHERE id = \(id) AND version = \(version) RETURNING 1
            """,
            logger: database.logger
        ).collect().count == 1
    }

    /// Deletes the post with its photos and comments.
    func delete(_ id: UUID, on connection: PostgresConnection) async throws -> Bool {
        try await photos.deleteAttached(to: .post, id, on: connection)
        return try await connection.query("DELETE FROM posts WHERE id = \(id) RETURNING 1", logger: database.logger).collect().count == 1
    }

    /// The post `id` of `household`, unless it expired.
    func post(_ id: UUID, of household: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> Row? {
        try await rows(
            """
            p.id = \(id) AND p.household_id = \(household) AND (p.expires_at IS NULL OR p.expires_at > \(database.now()))
            \(unescaped: locking ? "FOR UPDATE OF p" : "")
            """,
            on: connection
        ).first
    }

    /// The board's page before `before`: pinned posts first, then the newest.
    func list(of household: UUID, limit: Int, before: Int64?, on connection: PostgresConnection) async throws -> [Row] {
        try await rows(
            """
            p.household_id = \(household) AND (p.expires_at IS NULL OR p.expires_at > \(database.now()))
            AND \(unescaped: Self.key) < \(before ?? Int64.max) ORDER BY 1 DESC LIMIT \(limit)
            """,
            on: connection)
    }

    func addComment(to post: UUID, by member: UUID, text: String, on connection: PostgresConnection) async throws -> Household.PostComment {
        let id = UUID(), now = database.now()
        try await connection.query(
            "INSERT INTO post_comments (id, post_id, member_id, at, text) VALUES (\(id), \(post), \(member), \(now), \(text))", logger: database.logger)
        return Household.PostComment(id: HouseholdStore.text(id), memberId: HouseholdStore.text(member), at: now, text: text)
    }

    /// The members who commented on `post`, each once.
    func commenters(of post: UUID, on connection: PostgresConnection) async throws -> [UUID] {
        try await connection.query("SELECT DISTINCT member_id FROM post_comments WHERE post_id = \(post)", logger: database.logger)
            .decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
    }

    /// A post's comments after `after`, the oldest first.
    func comments(of post: UUID, limit: Int, after: Int64?, on connection: PostgresConnection) async throws -> [(comment: Household.PostComment, seq: Int64)] {
        try await connection.query(
            """
            SELECT id, member_id, at, text, seq FROM post_comments WHERE post_id = \(post) AND seq > \(after ?? 0) ORDER BY seq LIMIT \(limit)
            """,
            logger: database.logger
        ).decode((UUID, UUID, Date, String, Int64).self).reduce(into: []) { comments, row in
            comments.append((Household.PostComment(id: HouseholdStore.text(row.0), memberId: HouseholdStore.text(row.1), at: row.2, text: row.3), row.4))
        }
    }

    /// Deletes the posts that expired (with their photos); returns how many.
    func pruneExpired(on connection: PostgresConnection) async throws -> Int {
        let expired = try await connection.query(
            "SELECT id FROM posts WHERE expires_at <= \(database.now()) ORDER BY expires_at LIMIT 200 FOR UPDATE SKIP LOCKED", logger: database.logger
        ).decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
        for id in expired { _ = try await delete(id, on: connection) }
        return expired.count
    }

    private func rows(_ condition: PostgresQuery, on connection: PostgresConnection) async throws -> [Row] {
        let query = PostgresQuery.select(
            """
            \(Self.key) AS key,
            p.id, p.author, p.title, p.description, p.pinned, p.expires_at, p.created_at, p.updated_at, p.version,
            (SELECT count(*)::int FROM post_comments c WHERE c.post_id = p.id)
            FROM posts p
            """,
            where: condition)
        var rows: [Row] = []
        var ids: [UUID] = []
        var cells: [(key: Int64, id: UUID, author: UUID, values: Values, created: Date, updated: Date, version: Int, comments: Int)] = []
        for try await (key, id, author, title, description, pinned, expires, created, updated, version, comments) in try await connection.query(query, logger: database.logger)
            .decode((Int64, UUID, UUID, String, String?, Bool, Date?, Date, Date, Int, Int).self)
        {
            ids.append(id)
            cells.append((key, id, author, Values(title: title, description: description, pinned: pinned, expiresAt: expires), created, updated, version, comments))
        }
        let attached = try await photos.attached(to: .post, ids, on: connection)
        for cell in cells {
            rows.append(Row(id: cell.id, author: cell.author, values: cell.values, view: Household.Post(
                id: HouseholdStore.text(cell.id), authorId: HouseholdStore.text(cell.author), title: cell.values.title, description: cell.values.description,
                photoIds: (attached[cell.id] ?? []).map(HouseholdStore.text), pinned: cell.values.pinned, expiresAt: cell.values.expiresAt,
                comments: cell.comments, createdAt: cell.created, updatedAt: cell.updated, version: cell.version), key: cell.key))
        }
        return rows
    }
}
