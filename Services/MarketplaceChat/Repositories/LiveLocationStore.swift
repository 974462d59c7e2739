import Contracts
import Crypto
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.live_locations`: each side's live location in a conversation, sealed under the
/// conversation's key, served until its expiry and deleted within a minute of it.
struct LiveLocationStore: Sendable {
    let database: Database
    /// Wraps each conversation's data key (MARKETPLACE_CHAT_KEY).
    let keys: KeyRing

    private static func context(_ conversation: UUID, _ side: Int16) -> String { "\(ListingStore.text(conversation))/live/\(side)" }

    /// Shares `point` from `side`: a new share runs `minutes` (60 when absent) from now; an update
    /// keeps its start and its expiry unless `minutes` moves it, never past an hour after the start.
    func share(_ point: MarketplaceChat.Point, minutes: Int?, in conversation: UUID, side: Int16, on connection: PostgresConnection) async throws {
        let now = database.now()
        let box = try Seal.seal(
            Data(try EnvelopeCodec().encode(point)), key: try await database.conversationKey(conversation, ring: keys, on: connection),
            context: Self.context(conversation, side))
        let fresh = now.adding(minutes.map { .seconds($0 * 60) } ?? MarketplaceChat.Bounds.liveLocationShare)
        let moved = minutes.map { now.adding(.seconds($0 * 60)) }
        try await connection.query(
            """
            INSERT INTO live_locations AS l (conversation_id, side, body, started_at, updated_at, expires_at)
            VALUES (\(conversation), \(side), \(box), \(now), \(now), \(fresh))
            ON CONFLICT (conversation_id, side) DO UPDATE SET
                body = excluded.body, updated_at = excluded.updated_at,
                started_at = CASE WHEN l.expires_at > \(now) THEN l.started_at ELSE excluded.started_at END,
                expires_at = CASE WHEN l.expires_at > \(now)
                    THEN LEAST(l.started_at + interval '1 hour', COALESCE(\(moved), l.expires_at))
                    ELSE excluded.expires_at END
            """,
            logger: database.logger)
    }

    /// Both sides' live locations in `conversation`, seen from `side`, where not expired.
    func locations(in conversation: UUID, for side: Int16, on connection: PostgresConnection) async throws -> MarketplaceChat.LiveLocations {
        let rows = try await connection.query(
            """
            SELECT side, body, started_at, updated_at, expires_at FROM live_locations
            WHERE conversation_id = \(conversation) AND expires_at > \(database.now())
            """,
            logger: database.logger)
        let all = try await rows.decode((Int16, Data, Date, Date, Date).self).reduce(into: []) { $0.append($1) }
        var locations = MarketplaceChat.LiveLocations()
        guard !all.isEmpty else { return locations }
        let key = try await database.conversationKey(conversation, ring: keys, on: connection)
        for (owner, box, started, updated, expires) in all {
            let point = try EnvelopeCodec().decode(MarketplaceChat.Point.self, from: Array(try Seal.open(box, key: key, context: Self.context(conversation, owner))))
            let location = MarketplaceChat.LiveLocation(point: point, startedAt: started, updatedAt: updated, expiresAt: expires)
            if owner == side { locations.mine = location } else { locations.theirs = location }
        }
        return locations
    }

    /// Stops `side`'s share; whether there was one.
    @discardableResult
    func stop(in conversation: UUID, side: Int16, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(
            "DELETE FROM live_locations WHERE conversation_id = \(conversation) AND side = \(side) RETURNING 1", logger: database.logger
        ).decode(Int.self).first { _ in true } != nil
    }

    /// Deletes up to `limit` expired shares; returns how many.
    func purge(limit: Int = 5_000, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            """
            WITH gone AS (
                DELETE FROM live_locations WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM live_locations WHERE expires_at <= \(database.now()) LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                RETURNING 1)
            SELECT count(*)::int FROM gone
            """,
            logger: database.logger
        ).decode(Int.self).first { _ in true } ?? 0
    }

    /// The live location the other side of `conversation` shares with `viewer`, unless expired or
    /// either blocked the other: what the live stream's `location` event carries.
    func theirs(in conversation: UUID, viewer: UUID, on connection: PostgresConnection) async throws -> MarketplaceChat.LiveLocation? {
        let rows = try await connection.query(
            """
            SELECT l.side FROM live_locations l
            JOIN conversation_members me ON me.conversation_id = l.conversation_id AND me.account_id = \(viewer) AND me.side <> l.side
            JOIN conversation_members sharer ON sharer.conversation_id = l.conversation_id AND sharer.side = l.side
            WHERE l.conversation_id = \(conversation) AND l.expires_at > \(database.now())
              AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = \(viewer) AND b.blocked = sharer.account_id)
                                                    OR (b.blocker = sharer.account_id AND b.blocked = \(viewer)))
            """,
            logger: database.logger)
        guard let side = try await rows.decode(Int16.self).first(where: { _ in true }) else { return nil }
        return try await locations(in: conversation, for: 1 - side, on: connection).theirs
    }
}
