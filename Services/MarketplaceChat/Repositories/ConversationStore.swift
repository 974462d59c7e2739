import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.conversations`, `conversation_members` and `chatters`: who talks with whom,
/// and the chat tab as each side sees it.
struct ConversationStore: Sendable {
    let database: Database

    /// A conversation as one of its sides is in it.
    struct Membership: Sendable {
        let conversation: UUID
        let side: Int16
        /// The other side's account; nil once erased.
        let other: UUID?
        let timerSeconds: Int
        let listingSeller: UUID?
    }

    func recordChatter(_ account: UUID, username: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO chatters (account_id, username, updated_at) VALUES (\(account), \(username), \(database.now()))
            ON CONFLICT (account_id) DO UPDATE SET username = EXCLUDED.username, updated_at = EXCLUDED.updated_at
            WHERE chatters.username <> EXCLUDED.username
            """,
            logger: database.logger)
    }

    /// The account that chats under `username` (the latest to use it), if any.
    func chatter(named username: String, on connection: PostgresConnection) async throws -> UUID? {
        let rows = try await connection.query(
            "SELECT account_id FROM chatters WHERE lower(username) = lower(\(username)) ORDER BY updated_at DESC LIMIT 1", logger: database.logger)
        return try await rows.decode(UUID.self).first { _ in true }
    }

    /// The account that sells a listing chats under its trader's name until it acts in the chat.
    func recordSeller(_ seller: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO chatters (account_id, username, updated_at) SELECT account_id, username, updated_at FROM traders WHERE account_id = \(seller)
            ON CONFLICT (account_id) DO NOTHING
            """,
            logger: database.logger)
    }

    /// The conversation `key` names, made with `opener` on side 0 and `other` on side 1 when there is
    /// none (whoever races, one is made); `made` says whether this call made it.
    func open(key: String, kind: MarketplaceChat.ConversationKind, listing: UUID?, university: String?, opener: UUID, other: UUID,
              on connection: PostgresConnection) async throws -> (id: UUID, made: Bool) {
        if let found = try await conversation(key: key, on: connection) { return (found, false) }
        let id = UUID()
        let taken = try await connection.query(
            "INSERT INTO conversation_keys (key, conversation_id) VALUES (\(key), \(id)) ON CONFLICT (key) DO NOTHING RETURNING 1", logger: database.logger)
        guard try await taken.decode(Int.self).first(where: { _ in true }) != nil else {
            guard let found = try await conversation(key: key, on: connection) else { throw OperationError(.unavailable, "try again") }
            return (found, false)
        }
        try await connection.query(
            """
            INSERT INTO conversations (id, kind, listing_id, university_id, created_at)
            VALUES (\(id), \(kind.rawValue), \(listing), \(university), \(database.now()))
            """,
            logger: database.logger)
        try await connection.query(
            "INSERT INTO conversation_members (conversation_id, side, account_id) VALUES (\(id), 0, \(opener)), (\(id), 1, \(other))",
            logger: database.logger)
        return (id, true)
    }

    func exists(key: String, on connection: PostgresConnection) async throws -> Bool {
        try await conversation(key: key, on: connection) != nil
    }

    private func conversation(key: String, on connection: PostgresConnection) async throws -> UUID? {
        let rows = try await connection.query("SELECT conversation_id FROM conversation_keys WHERE key = \(key)", logger: database.logger)
        return try await rows.decode(UUID.self).first { _ in true }
    }

    /// `account`'s side of conversation `id` of `kind` (in `university`, for listing ones), unless a
    /// block stands between the two; `locking` the conversation's row (a new message's number).
    func membership(_ id: UUID, of account: UUID, kind: MarketplaceChat.ConversationKind, university: String?, locking: Bool = false,
                    on connection: PostgresConnection) async throws -> Membership? {
        let rows = try await connection.query(
            """
            SELECT c.id, me.side, other.account_id, c.timer_seconds, l.seller FROM conversations c
            JOIN conversation_members me ON me.conversation_id = c.id AND me.account_id = \(account)
            JOIN conversation_members other ON other.conversation_id = c.id AND other.side <> me.side
            LEFT JOIN listings l ON l.id = c.listing_id
            WHERE c.id = \(id) AND c.kind = \(kind.rawValue) AND c.university_id IS NOT DISTINCT FROM \(university)
              AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = \(account) AND b.blocked = other.account_id)
                                                    OR (b.blocker = other.account_id AND b.blocked = \(account)))
            \(unescaped: locking ? "FOR UPDATE OF c" : "")
            """,
            logger: database.logger)
        for try await (conversation, side, other, timer, seller) in rows.decode((UUID, Int16, UUID?, Int, UUID?).self) {
            return Membership(conversation: conversation, side: side, other: other, timerSeconds: timer, listingSeller: seller)
        }
        return nil
    }

    /// How many buyers opened a conversation about each of `listings` (those with none are left out).
    func interest(in listings: [UUID], on connection: PostgresConnection) async throws -> [UUID: Int] {
        guard !listings.isEmpty else { return [:] }
        let rows = try await connection.query(
            "SELECT listing_id, count(*)::int FROM conversations WHERE listing_id = ANY(\(listings)) GROUP BY listing_id", logger: database.logger)
        var counts: [UUID: Int] = [:]
        for try await (listing, count) in rows.decode((UUID, Int).self) { counts[listing] = count }
        return counts
    }

    /// Whether the two have a conversation together.
    func share(_ one: UUID, _ other: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT 1 FROM conversation_members a JOIN conversation_members b ON b.conversation_id = a.conversation_id AND b.account_id = \(other)
            WHERE a.account_id = \(one) LIMIT 1
            """,
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } != nil
    }

    /// The name `account` is known by here: as a trader, else as a chatter.
    func username(of account: UUID, on connection: PostgresConnection) async throws -> String? {
        let rows = try await connection.query(
            """
            SELECT COALESCE((SELECT username FROM traders WHERE account_id = \(account)), (SELECT username FROM chatters WHERE account_id = \(account)))
            """,
            logger: database.logger)
        return try await rows.decode(String?.self).first { _ in true } ?? nil
    }

    /// The buyer of conversation `id` about `listing`, unless they deleted their account.
    func buyer(in id: UUID, about listing: UUID, on connection: PostgresConnection) async throws -> UUID? {
        let rows = try await connection.query(
            """
            SELECT m.account_id FROM conversations c JOIN conversation_members m ON m.conversation_id = c.id AND m.side = 0
            WHERE c.id = \(id) AND c.listing_id = \(listing) AND m.account_id IS NOT NULL
            """,
            logger: database.logger)
        return try await rows.decode(UUID.self).first { _ in true }
    }

    func kind(of conversation: UUID, on connection: PostgresConnection) async throws -> MarketplaceChat.ConversationKind? {
        let rows = try await connection.query("SELECT kind FROM conversations WHERE id = \(conversation)", logger: database.logger)
        return try await rows.decode(String.self).first { _ in true }.flatMap(MarketplaceChat.ConversationKind.init(rawValue:))
    }

    /// One line of the chat tab, without its last message.
    struct Line: Sendable {
        let id: UUID
        let view: MarketplaceChat.Conversation
    }

    /// `account`'s conversations of `kind` (in `university`), the latest activity first, below
    /// `before`; or the one `only`. A conversation its side deleted shows again with a new message;
    /// one across a block does not show.
    func lines(of account: UUID, kind: MarketplaceChat.ConversationKind, university: String?, only: UUID? = nil, before: Int64?, limit: Int,
               on connection: PostgresConnection) async throws -> [Line] {
        let rows = try await connection.query(
            """
            SELECT c.id, c.listing_id, l.title, l.state, l.seller = \(account), other.account_id, ch.username, c.timer_seconds, c.created_at,
                   c.activity,
                   (SELECT count(*)::int FROM messages m
                    WHERE m.conversation_id = c.id AND m.sender_side <> me.side AND m.seq > me.read_seq AND m.kind <> 'timer'
                      AND m.deleted_at IS NULL AND \(unescaped: MessageStore.uncleared) AND COALESCE(m.reader_expires_at, 'infinity') > \(database.now()))
            FROM conversation_members me
            JOIN conversations c ON c.id = me.conversation_id
            JOIN conversation_members other ON other.conversation_id = c.id AND other.side <> me.side
            LEFT JOIN listings l ON l.id = c.listing_id AND l.state <> 'removed'
            LEFT JOIN chatters ch ON ch.account_id = other.account_id
            WHERE me.account_id = \(account) AND c.kind = \(kind.rawValue) AND c.university_id IS NOT DISTINCT FROM \(university)
              AND (\(only)::uuid IS NULL OR c.id = \(only))
              AND (\(before)::bigint IS NULL OR c.activity < \(before))
              AND (\(only)::uuid IS NOT NULL OR c.last_seq > COALESCE(me.cleared_seq, 0) OR (me.cleared_seq IS NULL AND me.side = 0))
              AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = \(account) AND b.blocked = other.account_id)
                                                    OR (b.blocker = other.account_id AND b.blocked = \(account)))
            ORDER BY c.activity DESC LIMIT \(limit)
            """,
            logger: database.logger)
        var lines: [Line] = []
        for try await row in rows.decode((UUID, UUID?, String?, String?, Bool?, UUID?, String?, Int, Date, Int64, Int).self) {
            let (id, listing, title, state, mine, other, username, timer, created, activity, unread) = row
            var about: MarketplaceChat.ConversationListing?
            if let listing, let title, let state {
                about = .init(id: ListingStore.text(listing), title: title, state: MarketplaceChat.ListingState(rawValue: state) ?? .hidden, mine: mine ?? false)
            }
            let with = other.map { MarketplaceChat.Participant(id: ListingStore.text($0), username: username ?? "member") } ?? .deleted
            lines.append(Line(id: id, view: .init(
                id: ListingStore.text(id), kind: kind, listing: about, with: with, timerSeconds: timer, lastMessage: nil, unread: unread,
                createdAt: created, activity: activity)))
        }
        return lines
    }

    /// Sets the timer of messages sent from now on; false when it was already in force.
    func setTimer(_ seconds: Int, of conversation: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            "UPDATE conversations SET timer_seconds = \(seconds) WHERE id = \(conversation) AND timer_seconds <> \(seconds) RETURNING 1",
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } != nil
    }

    /// Deletes the conversation for `side`: its messages so far are gone for it, and from the
    /// database once gone for both; returns the kept images of the messages deleted, for the caller to
    /// delete (`MessageStore.deleteImages`).
    func clear(_ conversation: UUID, side: Int16, on connection: PostgresConnection) async throws -> [UUID?] {
        try await connection.query(
            """
            UPDATE conversation_members me SET cleared_seq = c.last_seq FROM conversations c
            WHERE c.id = me.conversation_id AND me.conversation_id = \(conversation) AND me.side = \(side)
            """,
            logger: database.logger)
        // An erased side has nothing to keep.
        let rows = try await connection.query(
            """
            DELETE FROM messages m WHERE m.conversation_id = \(conversation)
              AND m.seq <= (SELECT min(CASE WHEN account_id IS NULL THEN 9223372036854775807 ELSE COALESCE(cleared_seq, 0) END)
                            FROM conversation_members WHERE conversation_id = \(conversation))
            RETURNING m.media_id
            """,
            logger: database.logger)
        return try await rows.decode(UUID?.self).reduce(into: []) { $0.append($1) }
    }

    /// Leaves `account`'s side of every conversation without an account (its messages stay, from "a
    /// deleted user"; its live locations go), deletes the conversations left with no one, and forgets
    /// its username. Returns
    /// the conversations deleted, whose keys go too.
    func erase(_ account: UUID, on connection: PostgresConnection) async throws -> [UUID] {
        try await connection.query(
            """
            DELETE FROM live_locations l USING conversation_members m
            WHERE m.conversation_id = l.conversation_id AND m.side = l.side AND m.account_id = \(account)
            """,
            logger: database.logger)
        try await connection.query("UPDATE conversation_members SET account_id = NULL WHERE account_id = \(account)", logger: database.logger)
        let rows = try await connection.query(
            """
            DELETE FROM conversations c WHERE NOT EXISTS (
                SELECT 1 FROM conversation_members m WHERE m.conversation_id = c.id AND m.account_id IS NOT NULL)
            RETURNING c.id
            """,
            logger: database.logger)
        let gone = try await rows.decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
        try await connection.query("DELETE FROM chatters WHERE account_id = \(account)", logger: database.logger)
        return gone
    }
}
