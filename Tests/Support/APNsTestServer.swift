import Contracts
import Crypto
import Envelope
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A local server that speaks APNs' HTTP/2 interface over TLS, written for the tests: `POST
/// /3/device/<token>` with Apple's headers, a provider JWT (ES256, checked with the public half of
/// the key it hands out as a `.p8` file) and a JSON payload of at most 4,096 bytes. It answers what
/// the test's `reply` says (any status and reason), can hold its answers (`hold()`, `release()`) and
/// counts a push as accepted only once its 200 reached the connection.
///
/// Like Apple, it keeps one provider token per team and key: a different token presented less than
/// 20 minutes (by `iat`) after the one it keeps is refused with 429 `TooManyProviderTokenUpdates`,
/// unless it answered `ExpiredProviderToken` to the kept one.
public final class APNsTestServer: Sendable {
    /// One request as received, with what was wrong with it.
    public struct Received: Sendable {
        public let token: String
        public let headers: [String: String]
        public let payload: JSONValue?
        public let jwt: String
        /// Empty when the request is what Apple asks for.
        public let problems: [String]

        public var apnsID: String? { headers["apns-id"] }
    }

    /// What to answer.
    public struct Reply: Sendable {
        public var status: Int
        public var reason: String?
        public var timestamp: Int64?

        public init(status: Int, reason: String? = nil, timestamp: Int64? = nil) {
            self.status = status
            self.reason = reason
            self.timestamp = timestamp
        }

        public static let ok = Reply(status: 200)
    }

    public static let keyID = "ABC123DEFG"
    /// `APNS_TOPICS` naming a bundle id for every app.
    public static let topics = ClientApp.allCases.map { "\($0.rawValue)=ie.melon.\($0.rawValue)" }.joined(separator: ",")
    public static let teamID = "DEF123GHIJ"

    public let port: Int
    /// The server certificate (PEM), to trust as `APNS_CA_FILE`.
    public let certificateFile: String
    /// The provider signing key as Apple hands it out (`APNS_KEY_FILE`).
    public let keyFile: String
    private let publicKey: P256.Signing.PublicKey
    private let channel: any Channel
    private let box = StateBox()

    final class StateBox: Sendable {
        let state = Mutex(State())
    }

    struct State: Sendable {
        var received: [Received] = []
        var accepted: [String: Int] = [:]
        /// When each apns-id was first accepted.
        var acceptedAt: [String: Date] = [:]
        /// The provider token kept for the team, its `iat`, and whether it was answered as expired.
        var kept: (jwt: String, issuedAt: Int64, expired: Bool)?
        var tokenUpdatesRefused = 0
        /// Requests received per apns-id.
        var attempts: [String: Int] = [:]
        var reply: @Sendable (Received, Int) -> Reply = { _, _ in .ok }
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var connections = 0
        /// Tokens whose signature and claims were checked (APNs, too, checks a token once, not per push).
        var verified: Set<String> = []
    }

    public init() async throws {
        let certificate = try await TestCertificate()
        certificateFile = certificate.certificate
        let signing = P256.Signing.PrivateKey()
        publicKey = signing.publicKey
        keyFile = URL(fileURLWithPath: certificateFile).deletingLastPathComponent().appendingPathComponent("AuthKey_\(Self.keyID).p8").path
        try signing.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)

        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificateFile).map { .certificate($0) }, privateKey: .file(certificate.key))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let box = box, publicKey = publicKey
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    box.state.withLock { $0.connections += 1 }
                    channel.closeFuture.whenComplete { _ in box.state.withLock { $0.connections -= 1 } }
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([
                                HTTP2FramePayloadToHTTP1ServerCodec(), StreamHandler(box: box, publicKey: publicKey),
                            ])
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress!.port!
    }

    /// The base URL, for `APNS_PRODUCTION_URL` and `APNS_SANDBOX_URL`.
    public var url: String { "https://127.0.0.1:\(port)" }

    /// Answers each request with `reply(request, n)`, n counting the requests with its apns-id so far (1 the first).
    public func answer(_ reply: @escaping @Sendable (Received, Int) -> Reply) {
        box.state.withLock { $0.reply = reply }
    }

    public var received: [Received] { box.state.withLock { $0.received } }
    /// Pushes answered 200 over a live connection, by apns-id.
    public var accepted: [String: Int] { box.state.withLock { $0.accepted } }
    public var connections: Int { box.state.withLock { $0.connections } }
    /// When each apns-id was first accepted.
    public var acceptedAt: [String: Date] { box.state.withLock { $0.acceptedAt } }
    /// Requests refused because their token replaced the kept one too soon.
    public var tokenUpdatesRefused: Int { box.state.withLock { $0.tokenUpdatesRefused } }

    /// Requests wait for `release()` before they are answered.
    public func hold() { box.state.withLock { $0.held = true } }

    public func release() {
        let waiting = box.state.withLock { state in
            state.held = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    public func shutdown() async {
        release()
        try? await channel.close()
    }

    /// One HTTP/2 stream: one request.
    final class StreamHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let box: StateBox
        let publicKey: P256.Signing.PublicKey
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(box: StateBox, publicKey: P256.Signing.PublicKey) {
            self.box = box
            self.publicKey = publicKey
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body(var buffer): body += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                guard let head else { return }
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let eventLoop = context.eventLoop
                let body = body, box = box, publicKey = publicKey
                Task {
                    let received = await Self.check(head, body, publicKey: publicKey, box: box)
                    let (reply, held): (Reply, Bool) = box.state.withLock { state in
                        state.received.append(received)
                        let attempt = received.apnsID.map { id in
                            state.attempts[id, default: 0] += 1
                            return state.attempts[id]!
                        } ?? 1
                        guard received.problems.isEmpty else { return (Reply(status: 400, reason: received.problems[0]), state.held) }
                        if let refusal = state.tokenRefusal(received.jwt) { return (refusal, state.held) }
                        let reply = state.reply(received, attempt)
                        if reply.reason == "ExpiredProviderToken" { state.kept?.expired = true }
                        return (reply, state.held)
                    }
                    if held {
                        await withCheckedContinuation { continuation in
                            let stillHeld = box.state.withLock { state in
                                if state.held { state.waiting.append(continuation) }
                                return state.held
                            }
                            if !stillHeld { continuation.resume() }
                        }
                    }
                    eventLoop.execute {
                        let (handler, context) = loopBound.value
                        handler.respond(reply, apnsID: received.apnsID, context: context)
                    }
                }
            }
        }

        func respond(_ reply: Reply, apnsID: String?, context: ChannelHandlerContext) {
            var headers = HTTPHeaders()
            if let apnsID { headers.add(name: "apns-id", value: apnsID) }
            var json: [String: Any] = [:]
            if let reason = reply.reason { json["reason"] = reason }
            if let timestamp = reply.timestamp { json["timestamp"] = timestamp }
            let body = json.isEmpty ? [] : [UInt8](try! JSONSerialization.data(withJSONObject: json))
            if !body.isEmpty { headers.add(name: "content-type", value: "application/json") }
            headers.add(name: "content-length", value: "\(body.count)")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http2, status: .init(statusCode: reply.status), headers: headers))), promise: nil)
            if !body.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil) }
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
            let box = box
            written.futureResult.whenSuccess {
                guard reply.status == 200, let apnsID else { return }
                box.state.withLock { state in
                    state.accepted[apnsID, default: 0] += 1
                    if state.acceptedAt[apnsID] == nil { state.acceptedAt[apnsID] = Date() }
                }
            }
        }

        /// The request as Apple would check it.
        static func check(_ head: HTTPRequestHead, _ body: [UInt8], publicKey: P256.Signing.PublicKey, box: StateBox) async -> Received {
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            var problems: [String] = []
            let token = head.uri.hasPrefix("/3/device/") ? String(head.uri.dropFirst("/3/device/".count)) : ""
            if head.method != .POST || token.isEmpty { problems.append("BadPath") }
            if token.isEmpty || token.count % 2 != 0 || !token.allSatisfy(\.isHexDigit) { problems.append("BadDeviceToken") }
            if headers["apns-topic"] == nil { problems.append("MissingTopic") }
            if !["alert", "background", "voip", "complication", "fileprovider", "mdm", "location", "liveactivity", "pushtotalk", "widgets", "controls"]
                .contains(headers["apns-push-type"] ?? "") { problems.append("InvalidPushType") }
            if let priority = headers["apns-priority"], !["1", "5", "10"].contains(priority) { problems.append("BadPriority") }
            if headers["apns-push-type"] == "background", headers["apns-priority"] != "5" { problems.append("BadPriority") }
            if let id = headers["apns-id"], UUID(uuidString: id) == nil { problems.append("BadMessageId") }
            if let collapse = headers["apns-collapse-id"], collapse.utf8.count > 64 { problems.append("BadCollapseId") }
            if let expiration = headers["apns-expiration"], Int64(expiration) == nil { problems.append("BadExpirationDate") }
            if body.isEmpty { problems.append("PayloadEmpty") }
            if body.count > 4_096 { problems.append("PayloadTooLarge") }
            let payload = try? JSONValue.parse(body)
            if payload?["aps"] == nil { problems.append("PayloadEmpty") }
            let authorization = headers["authorization"] ?? ""
            let jwt = authorization.hasPrefix("bearer ") ? String(authorization.dropFirst(7)) : ""
            if jwt.isEmpty {
                problems.append("MissingProviderToken")
            } else if !box.state.withLock({ $0.verified.contains(jwt) }) {
                if await Self.verify(jwt, publicKey: publicKey) {
                    box.state.withLock { _ = $0.verified.insert(jwt) }
                } else {
                    problems.append("InvalidProviderToken")
                }
            }
            return Received(token: token, headers: headers, payload: payload, jwt: jwt, problems: problems)
        }

        /// A JWT's `iat`, read without checking (the token was checked before).
        static func issuedAt(_ jwt: String) -> Int64? {
            let parts = jwt.split(separator: ".")
            guard parts.count == 3 else { return nil }
            var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            guard let data = Data(base64Encoded: base64), case .number(let iat)? = (try? JSONValue.parse(Array(data)))?["iat"] else { return nil }
            return Int64(iat)
        }

        struct Claims: JWTPayload {
            let iss: String
            let iat: Int64

            func verify(using algorithm: some JWTAlgorithm) async throws {
                guard iss == APNsTestServer.teamID else { throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "iss") }
                let age = Date().timeIntervalSince1970 - Double(iat)
                guard age > -60, age < 3_600 else { throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "iat") }
            }
        }

        static func verify(_ jwt: String, publicKey: P256.Signing.PublicKey) async -> Bool {
            let keys = JWTKeyCollection()
            guard let key = try? ES256PublicKey(backing: publicKey) else { return false }
            await keys.add(ecdsa: key, kid: JWKIdentifier(string: APNsTestServer.keyID))
            return (try? await keys.verify(jwt, as: Claims.self)) != nil
        }
    }
}

extension APNsTestServer.State {
    /// Apple's rule for provider tokens (see the server's comment): nil when `jwt` may be used.
    mutating func tokenRefusal(_ jwt: String) -> APNsTestServer.Reply? {
        guard let issuedAt = APNsTestServer.StreamHandler.issuedAt(jwt) else { return nil }
        guard let kept, kept.jwt != jwt else {
            if kept == nil { self.kept = (jwt, issuedAt, false) }
            return nil
        }
        guard kept.expired || issuedAt - kept.issuedAt >= 1_200 else {
            tokenUpdatesRefused += 1
            return APNsTestServer.Reply(status: 429, reason: "TooManyProviderTokenUpdates")
        }
        self.kept = (jwt, issuedAt, false)
        return nil
    }
}

/// A host that takes TCP connections and never answers (a TLS handshake waits for ever), as an
/// APNs host behind a broken network path does.
public final class UnansweringHost: Sendable {
    private let channel: any Channel
    public let port: Int

    public init() async throws {
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in channel.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress!.port!
    }

    public var url: String { "https://127.0.0.1:\(port)" }

    public func shutdown() async {
        try? await channel.close()
    }
}
