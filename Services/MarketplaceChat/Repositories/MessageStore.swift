import Contracts
import Crypto
import Envelope
import Foundation
import MarketplaceChatContract
import Media
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.messages`: each conversation's messages, sealed under the conversation's data
/// key, and the disappearing ones' expiries; a picture's files are sealed under that key too, and go
/// with their message.
struct MessageStore: Sendable {
    let database: Database
    /// Wraps each conversation's data key (MARKETPLACE_CHAT_KEY).
    let keys: KeyRing
    /// Where pictures are kept (unsealed blobs: `images(of:)` seals them per conversation).
    let media: MediaLibrary

    init(database: Database, keys: KeyRing, media: MediaLibrary? = nil) {
        self.database = database
        self.keys = keys
        self.media = media ?? MediaLibrary(database: database)
    }

    /// Messages `me` (its side's member row) has not deleted for itself.
    static let uncleared = "m.seq > COALESCE(me.cleared_seq, 0)"
    /// When `me`'s copy of `m` disappears (infinity when never).
    static let expiry = "COALESCE(CASE WHEN m.sender_side = me.side THEN m.sender_expires_at ELSE m.reader_expires_at END, 'infinity')"
    /// How long an unread disappearing message waits for its recipient beyond its timer.
    static let unreadGrace = Duration.seconds(7 * 86_400)

    /// What a message carries: the sealed part of a row.
    struct Content: Codable, Sendable, Equatable {
        var text: String?
        var meeting: MarketplaceChat.Meeting?
        var location: MarketplaceChat.Point?
        var image: MarketplaceChat.MessageImage?
        var timer: MarketplaceChat.TimerChange?

        var kind: MarketplaceChat.MessageKind {
            if timer != nil { .timer } else if meeting != nil { .meeting } else if location != nil { .location } else if image != nil { .image } else { .text }
        }
    }

    private static func context(_ conversation: UUID, _ seq: Int64) -> String { "\(ListingStore.text(conversation))/\(seq)" }

    private func key(_ conversation: UUID, on connection: PostgresConnection) async throws -> SymmetricKey {
        try await database.conversationKey(conversation, ring: keys, on: connection)
    }

    /// The media store of `conversation`'s pictures: their files sealed under its key.
    func images(of conversation: UUID, on connection: PostgresConnection) async throws -> MediaLibrary {
        let blobs = SealedMediaBlobs(media.blobs, key: try await key(conversation, on: connection), context: ListingStore.text(conversation))
        return MediaLibrary(database: database, blobs: blobs, limits: media.limits)
    }

    /// Appends a message from `side` with the conversation's timer (`timerSeconds`, 0 for a timer's
    /// announcement, which stays); its number is the conversation's next (the caller holds the
    /// conversation's row). A picture's kept image is `image`.
    func append(_ content: Content, to conversation: UUID, from side: Int16, timerSeconds: Int, flagged: Bool, image: UUID? = nil,
                on connection: PostgresConnection) async throws -> MarketplaceChat.Messages.Send.Response {
        let rows = try await connection.query(
            """
            UPDATE conversations SET last_seq = last_seq + 1, activity = nextval('conversation_activity_seq')
            WHERE id = \(conversation) RETURNING last_seq
            """,
            logger: database.logger)
        guard let seq = try await rows.decode(Int64.self).first(where: { _ in true }) else { throw OperationError(.unavailable, "try again") }
        let id = UUID(), now = database.now()
        let box = try Seal.seal(Data(try EnvelopeCodec().encode(content)), key: try await key(conversation, on: connection), context: Self.context(conversation, seq))
        let senderExpiry = timerSeconds > 0 ? now.adding(.seconds(timerSeconds)) : nil
        let readerExpiry = timerSeconds > 0 ? now.adding(.seconds(timerSeconds) + Self.unreadGrace) : nil
        try await connection.query(
            """
            INSERT INTO messages (conversation_id, seq, id, sender_side, kind, body, flagged, timer_seconds, sent_at, sender_expires_at,
                                  reader_expires_at, purge_at, media_id)
            VALUES (\(conversation), \(seq), \(id), \(side), \(content.kind.rawValue), \(box), \(flagged), \(timerSeconds), \(now), \(senderExpiry),
                    \(readerExpiry), \(readerExpiry), \(image))
            """,
            logger: database.logger)
        return .init(id: ListingStore.text(id), seq: seq, sentAt: now, timerSeconds: timerSeconds, expiresAt: senderExpiry, warning: flagged)
    }

    /// A message's columns as `decode` reads them, and the rows they come from.
    static let columns = """
        m.conversation_id, m.id, m.seq, m.sender_side = me.side, m.kind, m.body, m.flagged, m.timer_seconds, m.sent_at, m.read_at,
        m.deleted_at IS NOT NULL, NULLIF(\(expiry), 'infinity'), m.meeting_answer, m.meeting_answered_at,
        m.media_id IS NOT NULL
        FROM messages m JOIN conversation_members me ON me.conversation_id = m.conversation_id
        """

    /// The messages of `conversation` that `account`'s side may read now, the latest first, below
    /// `before` (or the one numbered `only`).
    func messages(in conversation: UUID, of account: UUID, before: Int64?, only: Int64? = nil, limit: Int, on connection: PostgresConnection)
        async throws -> [MarketplaceChat.Message]
    {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.columns)
            WHERE m.conversation_id = \(conversation) AND me.account_id = \(account) AND \(unescaped: Self.uncleared)
              AND \(unescaped: Self.expiry) > \(database.now()) AND (\(before)::bigint IS NULL OR m.seq < \(before))
              AND (\(only)::bigint IS NULL OR m.seq = \(only))
            ORDER BY m.seq DESC LIMIT \(limit)
            """,
            logger: database.logger)
        return try await decode(rows, on: connection).map(\.1)
    }

    /// The latest message `account` may read in each of `conversations`.
    func latest(in conversations: [UUID], of account: UUID, on connection: PostgresConnection) async throws -> [String: MarketplaceChat.Message] {
        guard !conversations.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT DISTINCT ON (m.conversation_id) \(unescaped: Self.columns)
            WHERE m.conversation_id = ANY(\(conversations)) AND me.account_id = \(account) AND \(unescaped: Self.uncleared)
              AND \(unescaped: Self.expiry) > \(database.now())
            ORDER BY m.conversation_id, m.seq DESC
            """,
            logger: database.logger)
        return Dictionary(try await decode(rows, on: connection)) { first, _ in first }
    }

    /// Where message `id` is, when `account` received it in a conversation of `kind` (in `university`)
    /// and may still read it: its conversation, number and sender. Blocks do not matter (one blocks
    /// and reports); a deleted message or a timer's announcement is not found.
    func received(_ id: UUID, by account: UUID, kind: MarketplaceChat.ConversationKind, university: String?, on connection: PostgresConnection)
        async throws -> (conversation: UUID, seq: Int64, sender: UUID)?
    {
        let rows = try await connection.query(
            """
            SELECT m.conversation_id, m.seq, sender.account_id FROM messages m
            JOIN conversations c ON c.id = m.conversation_id
            JOIN conversation_members me ON me.conversation_id = m.conversation_id AND me.account_id = \(account) AND me.side <> m.sender_side
            JOIN conversation_members sender ON sender.conversation_id = m.conversation_id AND sender.side = m.sender_side
            WHERE m.id = \(id) AND c.kind = \(kind.rawValue) AND c.university_id IS NOT DISTINCT FROM \(university) AND m.kind <> 'timer'
              AND m.deleted_at IS NULL AND sender.account_id IS NOT NULL AND \(unescaped: Self.uncleared) AND \(unescaped: Self.expiry) > \(database.now())
            """,
            logger: database.logger)
        return try await rows.decode((UUID, Int64, UUID).self).first { _ in true }.map { (conversation: $0.0, seq: $0.1, sender: $0.2) }
    }

    /// The messages of `rows` (`columns`), opened, with their conversations' ids.
    private func decode(_ rows: PostgresRowSequence, on connection: PostgresConnection) async throws -> [(String, MarketplaceChat.Message)] {
        // Every row first: the keys are read on the same connection.
        let all = try await rows.decode((UUID, UUID, Int64, Bool, String, Data?, Bool, Int, Date, Date?, Bool, Date?, String?, Date?, Bool).self)
            .reduce(into: []) { $0.append($1) }
        var keys: [UUID: SymmetricKey] = [:], messages: [(String, MarketplaceChat.Message)] = []
        for (conversation, id, seq, mine, kind, box, flagged, timer, sent, read, deleted, expires, answer, answered, pictured) in all {
            var content = Content()
            if let box {
                let key: SymmetricKey
                if let known = keys[conversation] { key = known } else { key = try await self.key(conversation, on: connection) }
                keys[conversation] = key
                content = try EnvelopeCodec().decode(Content.self, from: Array(try Seal.open(box, key: key, context: Self.context(conversation, seq))))
            }
            messages.append((ListingStore.text(conversation), .init(
                id: ListingStore.text(id), seq: seq, mine: mine, kind: MarketplaceChat.MessageKind(rawValue: kind) ?? .text, text: content.text,
                meeting: content.meeting, location: content.location, image: pictured ? content.image : nil, timer: content.timer, timerSeconds: timer,
                sentAt: sent, readAt: read, expiresAt: expires, warning: flagged, deleted: deleted, meetingAnswer: answer.flatMap(MarketplaceChat.MeetingAnswer.init(rawValue:)),
                meetingAnsweredAt: answered)))
        }
        return messages
    }

    /// Marks the other side's messages read up to `through` for `side`: their receipts, and each
    /// disappearing one's clock for this side (from now, never past its cap). Returns the number
    /// read through, now and before.
    func read(_ conversation: UUID, side: Int16, through: Int64, on connection: PostgresConnection) async throws -> (now: Int64, before: Int64) {
        let now = database.now()
        try await connection.query(
            """
            UPDATE messages m SET read_at = \(now),
                reader_expires_at = CASE WHEN m.timer_seconds > 0
                    THEN LEAST(m.reader_expires_at, \(now) + make_interval(secs => m.timer_seconds)) END,
                purge_at = CASE WHEN m.timer_seconds > 0
                    THEN GREATEST(m.sender_expires_at, LEAST(m.reader_expires_at, \(now) + make_interval(secs => m.timer_seconds))) END
            WHERE m.conversation_id = \(conversation) AND m.sender_side <> \(side) AND m.seq <= \(through) AND m.read_at IS NULL
              AND COALESCE(m.reader_expires_at, 'infinity') > \(now)
            """,
            logger: database.logger)
        let rows = try await connection.query(
            """
            UPDATE conversation_members me SET read_seq = GREATEST(me.read_seq, LEAST(\(through), c.last_seq))
            FROM conversations c, conversation_members old
            WHERE c.id = me.conversation_id AND me.conversation_id = \(conversation) AND me.side = \(side)
              AND old.conversation_id = me.conversation_id AND old.side = me.side
            RETURNING me.read_seq, old.read_seq
            """,
            logger: database.logger)
        return try await rows.decode((Int64, Int64).self).first { _ in true }.map { (now: $0.0, before: $0.1) } ?? (0, 0)
    }

    /// Deletes `side`'s message `id` for both: its content goes, its picture too; false when it is not
    /// theirs to delete (another's, gone, or expired for them).
    func delete(_ id: UUID, in conversation: UUID, side: Int16, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            UPDATE messages m SET body = NULL, flagged = false, media_id = NULL, deleted_at = COALESCE(m.deleted_at, \(database.now()))
            FROM conversation_members me, messages old
            WHERE m.id = \(id) AND m.conversation_id = \(conversation) AND m.sender_side = \(side) AND m.kind <> 'timer'
              AND me.conversation_id = m.conversation_id AND me.side = \(side) AND old.conversation_id = m.conversation_id AND old.seq = m.seq
              AND \(unescaped: Self.uncleared) AND \(unescaped: Self.expiry) > \(database.now())
            RETURNING old.media_id
            """,
            logger: database.logger)
        guard let found = try await rows.decode(UUID?.self).first(where: { _ in true }) else { return false }
        try await deleteImages([found], on: connection)
        return true
    }

    /// Deletes the kept images of messages that are gone (nil for a message without one).
    func deleteImages(_ ids: [UUID?], on connection: PostgresConnection) async throws {
        try await media.delete(ids.compactMap { $0 }, on: connection)
    }

    /// The kept image of message `id`, when `account`'s side of `conversation` may still read it.
    func image(_ id: UUID, in conversation: UUID, of account: UUID, on connection: PostgresConnection) async throws -> MediaRecord? {
        let rows = try await connection.query(
            """
            SELECT m.media_id FROM messages m JOIN conversation_members me ON me.conversation_id = m.conversation_id
            WHERE m.id = \(id) AND m.conversation_id = \(conversation) AND me.account_id = \(account) AND m.media_id IS NOT NULL
              AND \(unescaped: Self.uncleared) AND \(unescaped: Self.expiry) > \(database.now())
            """,
            logger: database.logger)
        guard let media = try await rows.decode(UUID.self).first(where: { _ in true }) else { return nil }
        return try await self.media.record(media, on: connection)
    }

    /// Records `side`'s answer to meeting `id`, which the other side proposed, unless it has one: its
    /// number and the answer it had before, or nil when there is no such proposal for `side` to answer
    /// (its own, deleted, gone or expired for it). The caller holds the conversation's row.
    func answer(_ id: UUID, _ answer: MarketplaceChat.MeetingAnswer, in conversation: UUID, side: Int16, on connection: PostgresConnection)
        async throws -> (seq: Int64, before: MarketplaceChat.MeetingAnswer?)?
    {
        let rows = try await connection.query(
            """
            SELECT m.seq, m.meeting_answer FROM messages m
            JOIN conversation_members me ON me.conversation_id = m.conversation_id AND me.side = \(side)
            WHERE m.id = \(id) AND m.conversation_id = \(conversation) AND m.kind = 'meeting' AND m.sender_side <> \(side) AND m.deleted_at IS NULL
              AND \(unescaped: Self.uncleared) AND \(unescaped: Self.expiry) > \(database.now())
            """,
            logger: database.logger)
        guard let (seq, before) = try await rows.decode((Int64, String?).self).first(where: { _ in true }) else { return nil }
        if before == nil {
            try await connection.query(
                """
                UPDATE messages SET meeting_answer = \(answer.rawValue), meeting_answered_at = \(database.now())
                WHERE conversation_id = \(conversation) AND seq = \(seq)
                """,
                logger: database.logger)
        }
        return (seq, before.flatMap(MarketplaceChat.MeetingAnswer.init(rawValue:)))
    }

    /// Deletes up to `limit` messages past both expiries, with their pictures; returns how many.
    func purge(limit: Int = 5_000, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            DELETE FROM messages WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM messages WHERE purge_at <= \(database.now()) ORDER BY purge_at LIMIT \(limit) FOR UPDATE SKIP LOCKED))
            RETURNING media_id
            """,
            logger: database.logger)
        let gone = try await rows.decode(UUID?.self).reduce(into: [UUID?]()) { $0.append($1) }
        try await deleteImages(gone, on: connection)
        return gone.count
    }
}

extension Database {
    /// Conversation `id`'s data key (the kit's `account_keys`, keyed by the conversation), made at first use.
    func conversationKey(_ id: UUID, ring: KeyRing, on connection: PostgresConnection) async throws -> SymmetricKey {
        guard let key = try await accountKey(id, create: true, ring: ring, on: connection) else {
            throw OperationError(.unavailable, "a conversation's key was not made; try again")
        }
        return key
    }
}
