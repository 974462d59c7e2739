import Bus
import Contracts
import Envelope
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import Metrics
import NIOCore
import ServiceLifecycle
import Synchronization

/// The services' live streams as WebSockets: `GET /v1/live/<stream>` with a bearer token upgrades to
/// a socket that carries the signed-in account's items of that stream, each a JSON text frame
/// `{"cursor":12,"type":"message","data":{...}}`.
///
/// A socket first catches up through the stream's `sync` operation (from `?after=<cursor>`, the last
/// cursor the client got; without it, from now), sends `{"type":"ready","cursor":N}`, then the
/// items the services publish as they commit (any gateway hears every one, through the broker's
/// proxy), in cursor order: an item beyond the next one (a live event lost on the way) makes it
/// catch up again, as does every `renewal` (which also tells the service the socket is still open,
/// so the account gets no push meanwhile, and checks the token again: an expired or ended session
/// closes the socket with code 4001; a service's refusal closes it with 4003 and why, see
/// `closeCode`). When the client's cursor is older than the service keeps,
/// the socket says `{"type":"reset","cursor":N}`: reload through the routes, then go on from N.
public final class LiveSockets: Service, Sendable {
    enum Input: Sendable {
        case item(LiveItem)
        case resync
    }

    let streams: [String: LiveStream]
    private let byTopic: [String: LiveStream]
    private let bus: BusClient
    private let subscriber: EventSubscriber?
    private let authenticator: (any RequestAuthenticator)?
    private let renewal: Duration
    private let logger: Logger
    /// Each open socket's input, by stream and account.
    private let sockets = Mutex<[String: [UUID: AsyncStream<Input>.Continuation]]>([:])
    private let open = Gauge(label: "melon_gateway_live_sockets")
    /// Sockets of one stream an account may hold open on one gateway.
    static let socketsPerAccount = 10
    private let sent = Counter(label: "melon_gateway_live_items_sent_total")

    /// - Parameters:
    ///   - subscriber: the broker proxy's feed of the streams' topics; nil: sockets catch up on every
    ///     renewal only.
    public init(services: [any ServiceContract.Type], bus: BusClient, subscriber: EventSubscriber?, authenticator: (any RequestAuthenticator)?,
                renewal: Duration = .seconds(30), logger: Logger) {
        let all = services.flatMap { $0.liveStreams }
        streams = Dictionary(all.map { ($0.name, $0) }) { first, _ in first }
        byTopic = Dictionary(all.map { ($0.topic, $0) }) { first, _ in first }
        self.bus = bus
        self.subscriber = subscriber
        self.authenticator = authenticator
        self.renewal = renewal
        self.logger = logger
    }

    /// The topics a subscriber must hear.
    public static func topics(of services: [any ServiceContract.Type]) -> [String] {
        services.flatMap { $0.liveStreams.map(\.topic) }
    }

    /// Runs the subscriber and hands each live item it delivers to the sockets of its account, until
    /// shutdown, which ends every socket.
    public func run() async throws {
        guard subscriber != nil else {
            // Nothing to hear: the sockets live on their catch-ups until shutdown.
            try? await gracefulShutdown()
            for socket in sockets.withLock({ $0.values.flatMap(\.values) }) { socket.finish() }
            return
        }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                if let subscriber = self.subscriber {
                    group.addTask { try? await subscriber.run() }
                    group.addTask {
                        for await delivery in subscriber.deliveries { self.deliver(delivery) }
                    }
                }
                await group.waitForAll()
            }
        }
        for socket in sockets.withLock({ $0.values.flatMap(\.values) }) { socket.finish() }
    }

    private func deliver(_ delivery: LiveDelivery) {
        switch delivery {
        case .connected:
            // Whatever was published while the proxy was away is caught up on.
            for socket in sockets.withLock({ $0.values.flatMap(\.values) }) { socket.yield(.resync) }
        case .event(let type, let body):
            guard let stream = byTopic[type], let event = LiveEvent<LiveNote>.decode(body) else { return }
            let targets = sockets.withLock { $0[Self.key(stream.name, event.data.account)].map { Array($0.values) } ?? [] }
            for socket in targets { socket.yield(.item(event.data.item)) }
        }
    }

    private static func key(_ stream: String, _ account: String) -> String { "\(stream) \(account.lowercased())" }

    /// The stream a path names (`/v1/live/chat`), if any.
    func stream(at path: String) -> LiveStream? {
        let parts = path.split(separator: "?", maxSplits: 1)[0].split(separator: "/")
        guard parts.count == 3, parts[0] == "v1", parts[1] == "live" else { return nil }
        return streams[String(parts[2])]
    }

    /// The `after` of a query: nil when absent, or an error naming it.
    static func after(_ uri: URI) throws(OperationError) -> Int64? {
        guard let text = uri.queryParameters.get("after") else { return nil }
        guard let value = Int64(text), value >= 0 else { throw OperationError.invalid(field: "after", "must be a cursor the socket gave (a whole number)") }
        return value
    }

    /// The subprotocol a browser offers (its WebSocket cannot send an Authorization header): it
    /// lists `melon.live` and `bearer.<access token>`, and the socket answers `melon.live`.
    static let subprotocol = "melon.live"
    static let tokenPrefix = "bearer."

    /// The subprotocols `Sec-WebSocket-Protocol` offers, in order.
    static func offeredProtocols(_ fields: HTTPFields) -> [String] {
        fields[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The access token of an offered `bearer.<token>`, if any.
    static func offeredToken(_ fields: HTTPFields) -> String? {
        offeredProtocols(fields).first { $0.hasPrefix(tokenPrefix) && $0.count > tokenPrefix.count }.map { String($0.dropFirst(tokenPrefix.count)) }
    }

    /// What a socket at `head` is for, or why it may not open: the stream of its path, the caller
    /// its token names (from `Authorization`, or offered as a subprotocol) in a session of an app the
    /// stream serves, and its cursor. The same reasons refuse the upgrade and answer the plain request.
    func admit(_ head: HTTPRequest) async throws(OperationError) -> (stream: LiveStream, caller: AuthenticatedCaller, request: Request, after: Int64?) {
        guard let path = head.path, let stream = stream(at: path) else { throw OperationError(.notFound, "no live stream at \(head.path ?? "/")") }
        var head = head
        if head.headerFields[.authorization] == nil, let token = Self.offeredToken(head.headerFields) {
            head.headerFields[.authorization] = "Bearer \(token)"
        }
        let request = Request(head: head, body: .init(buffer: ByteBuffer()))
        let caller: AuthenticatedCaller?
        do {
            caller = try await authenticator?.authenticate(request)
        } catch let error as OperationError {
            throw error
        } catch {
            throw OperationError(.unauthenticated, "the access token could not be verified")
        }
        guard let caller else {
            throw OperationError(
                .unauthenticated,
                "a live stream needs a signed-in caller: send Authorization: Bearer <access token>, or offer the subprotocols \(Self.subprotocol) and \(Self.tokenPrefix)<access token>")
        }
        guard stream.apps.allows(caller.app) else { throw stream.apps.refusal(of: caller.app) }
        return (stream, caller, request, try Self.after(request.uri))
    }

    /// Upgrades every WebSocket request to a stream's path. One that may not open (no token or an
    /// expired one, another app's session, a bad cursor, too many sockets) is closed at once with
    /// `closeCode` of the refusal and its reason: hummingbird-websocket answers every refused
    /// upgrade with an empty 400 (`writeFailedUpgrade`), and a browser reads a close code where it
    /// never sees a handshake's status. The same request without the upgrade gets the problem (`answer`).
    func shouldUpgrade(_ head: HTTPRequest, logger: Logger) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard let path = head.path, stream(at: path) != nil else { return .dontUpgrade }
        let admitted: Result<(stream: LiveStream, caller: AuthenticatedCaller, request: Request, after: Int64?), OperationError>
        do throws(OperationError) {
            let socket = try await admit(head)
            if tooMany(socket.stream, socket.caller) { throw Self.tooManySockets }
            admitted = .success(socket)
        } catch {
            admitted = .failure(error)
        }
        // A browser that offered its token as a subprotocol needs one back (or it fails the
        // handshake before reading the close): ours, never the token.
        let offered = Self.offeredProtocols(head.headerFields).contains(Self.subprotocol)
        return .upgrade(offered ? [.secWebSocketProtocol: Self.subprotocol] : [:]) { [self] inbound, outbound, _ in
            switch admitted {
            case .success(let socket):
                await session(socket.stream, caller: socket.caller, request: socket.request, after: socket.after, inbound: inbound, outbound: outbound)
            case .failure(let refusal):
                try? await outbound.close(.init(codeNumber: Self.closeCode(refusal.code)), reason: Self.closeReason(refusal.message))
            }
        }
    }

    static let tooManySockets = OperationError(
        .rateLimited, "at most \(socketsPerAccount) sockets of one stream are open at once per account: close one first")

    /// An account's phones and tablets, not a flood of sockets from one token.
    private func tooMany(_ stream: LiveStream, _ caller: AuthenticatedCaller) -> Bool {
        sockets.withLock { $0[Self.key(stream.name, caller.id)]?.count ?? 0 } >= Self.socketsPerAccount
    }

    /// The HTTP answer to a stream's path that was not upgraded: why, as a problem with its status.
    func answer(_ request: Request) async throws -> Response {
        let admitted = try await admit(request.head)
        if tooMany(admitted.stream, admitted.caller) { throw Self.tooManySockets }
        throw OperationError(.invalid, "open a WebSocket here (Connection: Upgrade, Upgrade: websocket), at most \(Self.socketsPerAccount) at once")
    }

    // MARK: - A socket

    private func session(_ stream: LiveStream, caller: AuthenticatedCaller, request: Request, after: Int64?, inbound: WebSocketInboundStream,
                         outbound: WebSocketOutboundWriter) async {
        let id = UUID(), key = Self.key(stream.name, caller.id)
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingNewest(10_000))
        // Registered before the first catch-up: an item published meanwhile waits here, and is
        // skipped if the catch-up brought it.
        sockets.withLock { $0[key, default: [:]][id] = continuation }
        open.record(sockets.withLock { $0.values.reduce(0) { $0 + $1.count } })
        defer {
            sockets.withLock { all in
                all[key]?[id] = nil
                if all[key]?.isEmpty == true { all[key] = nil }
            }
            open.record(sockets.withLock { $0.values.reduce(0) { $0 + $1.count } })
        }
        var cursor = after
        do {
            cursor = try await catchUp(stream, caller: caller, after: cursor, outbound: outbound)
            try await outbound.write(.text(#"{"type":"ready","cursor":\#(cursor ?? 0)}"#))
            let renewal = renewal
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The client's frames are not read for anything; their end is the socket's.
                group.addTask {
                    for try await _ in inbound {}
                    continuation.finish()
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: renewal)
                        continuation.yield(.resync)
                    }
                }
                for await input in inputs {
                    switch input {
                    case .item(let item):
                        guard let last = cursor, item.cursor > last else { continue }
                        if item.cursor == last + 1 {
                            try await outbound.write(.text(String(decoding: try EnvelopeCodec().encode(item), as: UTF8.self)))
                            sent.increment()
                            cursor = item.cursor
                        } else {
                            cursor = try await catchUp(stream, caller: caller, after: cursor, outbound: outbound)
                        }
                    case .resync:
                        guard let authenticator, (try? await authenticator.authenticate(request)) != nil else {
                            try await outbound.close(.init(codeNumber: 4001), reason: "the session ended or its token expired: sign in again")
                            group.cancelAll()
                            return
                        }
                        cursor = try await catchUp(stream, caller: caller, after: cursor, outbound: outbound)
                    }
                }
                group.cancelAll()
            }
        } catch let refusal as OperationError {
            // The service refused the socket or could not answer: the close says so, as HTTP would.
            try? await outbound.close(.init(codeNumber: Self.closeCode(refusal.code)), reason: Self.closeReason(refusal.message))
            logger.debug("a live socket ended", metadata: ["stream": "\(stream.name)", "error": "\(refusal)"])
        } catch {
            logger.debug("a live socket ended", metadata: ["stream": "\(stream.name)", "error": "\(String(reflecting: error))"])
        }
        // The service learns the socket is gone: the account's messages are pushed again.
        _ = try? await sync(stream, caller: caller, LiveSync.Request(after: nil, presence: .closed))
    }

    /// A socket's close code for a refusal: 4000 plus the HTTP status's last digits for a refusal of
    /// the request or the caller (4000 a bad cursor, 4001 no token or an expired one, 4003 an app or
    /// account the stream is not for, 4004 not found); 1013 (try again later) when the service was
    /// unavailable or slow, or the account has too many sockets open; 1011 otherwise.
    static func closeCode(_ code: ErrorCode) -> Int {
        switch code {
        case .invalid: 4000
        case .unauthenticated: 4001
        case .forbidden: 4003
        case .notFound, .gone: 4004
        case .unavailable, .deadlineExceeded, .rateLimited: 1013
        default: 1011
        }
    }

    /// A close reason fits 123 bytes of UTF-8 (RFC 6455, 5.5): `message`, cut at a character.
    static func closeReason(_ message: String) -> String {
        var reason = ""
        for character in message {
            guard reason.utf8.count + String(character).utf8.count <= 123 else { break }
            reason.append(character)
        }
        return reason
    }

    /// Sends the items after `after` (every page), or `reset` when they are no longer kept; the new cursor.
    private func catchUp(_ stream: LiveStream, caller: AuthenticatedCaller, after: Int64?, outbound: WebSocketOutboundWriter) async throws -> Int64 {
        var cursor = after
        while true {
            let page = try await sync(stream, caller: caller, LiveSync.Request(after: cursor, presence: .open))
            if page.reset {
                try await outbound.write(.text(#"{"type":"reset","cursor":\#(page.cursor)}"#))
                return page.cursor
            }
            for item in page.items {
                try await outbound.write(.text(String(decoding: try EnvelopeCodec().encode(item), as: UTF8.self)))
                sent.increment()
            }
            guard page.more else { return page.cursor }
            cursor = page.cursor
        }
    }

    private func sync(_ stream: LiveStream, caller: AuthenticatedCaller, _ request: LiveSync.Request) async throws -> LiveSync.Response {
        var options = CallOptions()
        options.authType = caller.type
        options.authID = caller.id
        options.authClaims = caller.claims
        let result = try await bus.call(service: stream.service, type: stream.sync.type, data: try EnvelopeCodec().encode(request), options: options)
        return try EnvelopeCodec().decode(LiveSync.Response.self, from: try result.get())
    }
}
