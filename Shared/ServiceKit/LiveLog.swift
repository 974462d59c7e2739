import Bus
import Contracts
import Envelope
import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// The service side of a live stream (`LiveStream`): each account's log of items in the kit's
/// `live_items`, with a cursor per account and stream in `live_cursors` that only grows in commit
/// order (taking the next one locks the account's cursor row until the transaction ends).
///
/// An item holds a reference (what changed), not the content: the service renders it when it is
/// published and when a client catches up, so what is sealed stays sealed in one place, and what
/// is gone (a message that disappeared) is never sent. Items are published after their
/// transaction commits (a NOTIFY each; the instance that claims the item first publishes it) and
/// kept for `retention` for clients that reconnect; `sync` answers them.
public struct LiveLog: Sendable {
    /// Renders an item for `account`: its `data`, or nil when what it refers to is gone.
    public typealias Renderer = @Sendable (_ type: String, _ ref: [UInt8], _ account: UUID, PostgresConnection) async throws -> JSONValue?

    public let stream: LiveStream
    let database: Database
    let render: Renderer

    /// How long items stay for catch-up; a client away longer is told to reload (`reset`).
    public static let retention = Duration.seconds(3_600)
    /// How long an open socket counts as present without a renewal (the gateway renews every 30 s).
    public static let presenceLease = Duration.seconds(90)

    public init(_ stream: LiveStream, database: Database, render: @escaping Renderer) {
        self.stream = stream
        self.database = database
        self.render = render
    }

    /// Appends an item of `type` referring to `ref` to each account's log, in the caller's
    /// transaction; each is published once it commits.
    public func append(_ type: String, _ ref: some Encodable, for accounts: [UUID], on connection: PostgresConnection) async throws {
        let bytes = Data(try EnvelopeCodec().encode(ref))
        // One lock order for every writer: two transactions never wait on each other's cursors.
        for account in Set(accounts).sorted(by: { $0.uuidString < $1.uuidString }) {
            let rows = try await connection.query(
                """
                INSERT INTO live_cursors (account_id, stream, cursor) VALUES (\(account), \(stream.name), 1)
                ON CONFLICT (account_id, stream) DO UPDATE SET cursor = live_cursors.cursor + 1 RETURNING cursor
                """,
                logger: database.logger)
            guard let cursor = try await rows.decode(Int64.self).first(where: { _ in true }) else { continue }
            try await connection.query(
                """
                INSERT INTO live_items (account_id, stream, cursor, type, ref, created_at)
                VALUES (\(account), \(stream.name), \(cursor), \(type), \(bytes), \(database.now()))
                """,
                logger: database.logger)
            try await database.notify("live", "\(stream.name) \(account.uuidString) \(cursor)", on: connection)
        }
    }

    /// Whether `account` has a socket of this stream open (as the gateway last said).
    public func isPresent(_ account: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            "SELECT present_until > \(database.now()) FROM live_cursors WHERE account_id = \(account) AND stream = \(stream.name)",
            logger: database.logger)
        return try await rows.decode(Bool?.self).first { _ in true }.flatMap { $0 } ?? false
    }

    /// The stream's `sync` for `account`: records its presence, then answers its items after `after`.
    public func sync(_ account: UUID, _ request: LiveSync.Request, on connection: PostgresConnection) async throws -> LiveSync.Response {
        let until: Date? = request.presence == .open ? database.now().adding(Self.presenceLease) : nil
        let rows = try await connection.query(
            """
            INSERT INTO live_cursors (account_id, stream, cursor, present_until) VALUES (\(account), \(stream.name), 0, \(until))
            ON CONFLICT (account_id, stream) DO UPDATE SET present_until = EXCLUDED.present_until
            RETURNING cursor, (SELECT min(i.cursor) FROM live_items i WHERE i.account_id = \(account) AND i.stream = \(stream.name))
            """,
            logger: database.logger)
        guard let (latest, oldest) = try await rows.decode((Int64, Int64?).self).first(where: { _ in true }) else {
            return .init(items: [], cursor: 0, reset: false)
        }
        guard let after = request.after else { return .init(items: [], cursor: latest, reset: false) }
        // A cursor from beyond the log's end, or items after it that are no longer kept.
        if after > latest || (after < latest && after + 1 < (oldest ?? latest + 1)) { return .init(items: [], cursor: latest, reset: true) }
        let found = try await connection.query(
            """
            SELECT cursor, type, ref FROM live_items WHERE account_id = \(account) AND stream = \(stream.name) AND cursor > \(after)
            ORDER BY cursor LIMIT \(LiveSync.pageSize)
            """,
            logger: database.logger)
        let refs = try await found.decode((Int64, String, Data).self).reduce(into: [(Int64, String, Data)]()) { $0.append($1) }
        var items: [LiveItem] = []
        for (cursor, type, ref) in refs {
            if let data = try await render(type, Array(ref), account, connection) { items.append(LiveItem(cursor: cursor, type: type, data: data)) }
        }
        // Items rendered to nothing still move the cursor on.
        return .init(items: items, cursor: refs.last?.0 ?? latest, reset: false, more: refs.count == LiveSync.pageSize)
    }

    /// Publishes each item once its transaction commits, through `publisher` (nil: live delivery is
    /// off, and clients catch up through `sync` alone). Registers on the database's notices: call it
    /// while the service is built.
    public func relay(through publisher: EventPublisher?) {
        guard let publisher else { return }
        let stream = stream, database = database, render = render
        database.onNotice("live") { payload in
            let parts = payload.split(separator: " ")
            guard parts.count == 3, parts[0] == stream.name, let account = UUID(uuidString: String(parts[1])), let cursor = Int64(parts[2]) else { return }
            do {
                let note = try await database.transaction { connection -> LiveNote? in
                    // The first instance to claim it publishes it; every instance hears the notice.
                    let rows = try await connection.query(
                        """
                        UPDATE live_items SET published = true
                        WHERE account_id = \(account) AND stream = \(stream.name) AND cursor = \(cursor) AND NOT published
                        RETURNING type, ref
                        """,
                        logger: database.logger)
                    guard let (type, ref) = try await rows.decode((String, Data).self).first(where: { _ in true }),
                          let data = try await render(type, Array(ref), account, connection)
                    else { return nil }
                    return LiveNote(account: account.uuidString.lowercased(), item: LiveItem(cursor: cursor, type: type, data: data))
                }
                if let note { publisher.publish(stream.topic, note) }
            } catch {
                database.logger.warning("a live item was not published", metadata: ["stream": "\(stream.name)", "error": "\(String(reflecting: error))"])
            }
        }
    }

    /// Deletes items older than `retention`; returns how many.
    public func prune(on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            WITH gone AS (DELETE FROM live_items WHERE stream = \(stream.name) AND created_at < \(database.now().adding(.zero - Self.retention)) RETURNING 1)
            SELECT count(*)::int FROM gone
            """,
            logger: database.logger)
        return try await rows.decode(Int.self).first { _ in true } ?? 0
    }

    /// The job that prunes the log.
    public var pruneJob: PeriodicJob {
        let log = self
        return PeriodicJob("live.\(stream.name).prune", every: .seconds(300), database: database) { try await log.prune(on: $0) }
    }
}

extension Database {
    /// Forgets `account`'s live logs and presence (its erasure).
    public func forgetLive(_ account: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM live_items WHERE account_id = \(account)", logger: logger)
        try await connection.query("DELETE FROM live_cursors WHERE account_id = \(account)", logger: logger)
    }
}
