import Envelope
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import MelonServices
import Synchronization
import Testing
import TestSupport

/// A client's socket: every text frame it got, parsed, in order.
final class LiveSocket: Sendable {
    final class Frames: Sendable {
        let value = Mutex<[JSONValue]>([])
        /// Whether the connection ended (refused, or closed).
        let ended = Mutex(false)
        /// The server's close frame, once it closed the socket.
        let close = Mutex<WebSocketCloseFrame?>(nil)
    }

    let frames = Frames()
    let task: Task<Void, any Error>

    /// A socket signed in with `token` in the Authorization header, as an app does.
    convenience init(_ url: String, token: String) {
        self.init(url, headers: [.authorization: "Bearer \(token)"])
    }

    /// A socket sending `headers` with its upgrade: a browser's offers its token as a subprotocol.
    init(_ url: String, headers: HTTPFields) {
        let frames = frames
        task = Task {
            defer { frames.ended.withLock { $0 = true } }
            let close = try await WebSocketClient.connect(
                url: url, configuration: .init(additionalHeaders: headers), logger: Logger(label: "socket")
            ) { inbound, _, _ in
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message, let value = try? JSONValue.parse(Array(text.utf8)) { frames.value.withLock { $0.append(value) } }
                }
            }
            frames.close.withLock { $0 = close }
        }
    }

    var received: [JSONValue] { frames.value.withLock { $0 } }

    /// The frames so far once one of `type` has come (nil after 10 s).
    func until(_ type: String) async -> [JSONValue]? {
        let frames = frames
        guard await eventually(timeout: .seconds(10), { frames.value.withLock { $0.contains { $0["type"] == .string(type) } } }) else { return nil }
        return received
    }

    func close() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// A WebSocket upgrade sent by hand and what came back until the server closed the connection:
/// the status and, when upgraded, the close frame's code and reason. Read off the wire: a close
/// sent right after the 101 can share its TCP segment, and swift-websocket's client then loses it
/// (the bytes after the response are dropped with the HTTP decoder), where a browser reads it.
func upgradeRefusal(port: Int, path: String, headers: [String: String]) throws -> (status: Int, code: Int?, reason: String?) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    let bytes = Array((request + "\r\n").utf8)
    guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw POSIXError(.EIO) }
    var received: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = recv(fd, &buffer, buffer.count, 0)
        if count <= 0 { break }
        received += buffer[0..<count]
    }
    let text = String(decoding: received, as: UTF8.self)
    let status = Int(text.split(separator: " ", maxSplits: 2).dropFirst().first ?? "") ?? 0
    guard let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound, received.count >= end + 4,
          received[end] == 0x88, Int(received[end + 1]) <= 125, received.count >= end + 2 + Int(received[end + 1])
    else { return (status, nil, nil) }
    let frame = received[(end + 2)..<(end + 2 + Int(received[end + 1]))]
    let code = Int(frame[frame.startIndex]) << 8 | Int(frame[frame.startIndex + 1])
    return (status, code, String(decoding: frame.dropFirst(2), as: UTF8.self))
}

/// The gateway's WebSocket for a live stream, in `melon` as run.sh runs it: a Nebula user's message
/// reaches the other's open socket through the broker's live-event proxy, and a reconnect with the
/// last cursor gets what was sent meanwhile.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(5))) struct LiveChatTests {
    /// Signs up `username` through the gateway, reading the code from melon's mail spool, and signs in to Nebula.
    static func nebulaUser(_ melon: MelonProcess, _ username: String) async throws -> String {
        let email = "\(username)@example.org", password = "a long walk by the Liffey \(username)"
        let spool = melon.spool
        let spooled = { @Sendable in
            Set(((try? FileManager.default.contentsOfDirectory(at: spool, includingPropertiesForKeys: nil)) ?? []).filter { $0.pathExtension == "eml" })
        }
        let before = spooled()
        let registered = try await melon.http.post(
            "/v1/auth/register", json: #"{"email":"\#(email)","password":"\#(password)","displayName":"\#(username)","username":"\#(username)"}"#)
        try #require(registered.status == 202, "\(registered.text)")
        try #require(await eventually(timeout: .seconds(20)) { spooled().count > before.count })
        let mail = try #require(spooled().subtracting(before).first)
        let subject = try #require(try await SMTPSink.inspect(mail)["subject"] as? String)
        let code = try #require(subject.split(separator: " ").last.map(String.init))
        let attempt = try #require(registered.json?["registration"].flatMap { if case .string(let text) = $0 { text } else { nil } })
        let verified = try await melon.http.post("/v1/auth/verify-email", json: #"{"email":"\#(email)","code":"\#(code)","registration":"\#(attempt)"}"#)
        try #require(verified.status == 200, "\(verified.text)")
        let login = try await melon.http.post("/v1/auth/login", json: #"{"app":"nebula","email":"\#(email)","password":"\#(password)"}"#)
        return try #require(login.json?["accessToken"].flatMap { if case .string(let text) = $0 { text } else { nil } }, "\(login.text)")
    }

    @Test func aMessageReachesTheOpenSocketAndAReconnectGetsWhatItMissed() async throws {
        let melon = try await MelonProcess.start(required: MelonServices.localEnvironment())
        let (dana, eoin) = (try await Self.nebulaUser(melon, "dana"), try await Self.nebulaUser(melon, "eoin"))
        let (danaHeaders, eoinHeaders) = (["Authorization": "Bearer \(dana)"], ["Authorization": "Bearer \(eoin)"])
        _ = try await melon.http.get("/v1/conversations", headers: eoinHeaders)
        let opened = try await melon.http.post("/v1/conversations", json: #"{"username":"eoin"}"#, headers: danaHeaders)
        let id = try #require(opened.json?["id"].flatMap { if case .string(let text) = $0 { text } else { nil } }, "\(opened.text)")
        let base = melon.http.base.absoluteString.replacingOccurrences(of: "http://", with: "ws://")

        // Without a token or with a cursor that is no number, no socket: the problem says why.
        #expect(try await melon.http.get("/v1/live/chat").status == 401)
        #expect(try await melon.http.get("/v1/live/chat?after=soon", headers: eoinHeaders).status == 400)

        let socket = LiveSocket("\(base)/v1/live/chat", token: eoin)
        guard let ready = await socket.until("ready") else {
            let outcome = await socket.task.result
            let plain = try await melon.http.get("/v1/live/chat", headers: eoinHeaders)
            Issue.record("no ready frame: \(outcome); GET: \(plain.status) \(plain.text)")
            return
        }
        #expect(ready.first?["cursor"] == 0, "\(ready)")
        #expect(try await melon.http.post("/v1/conversations/\(id)/messages", json: #"{"text":"hello"}"#, headers: danaHeaders).status == 201)
        let live = try #require(await socket.until("message"), "\(socket.received)")
        let item = try #require(live.last)
        #expect(item["cursor"] == 1 && item["data"]?["message"]?["text"] == "hello" && item["data"]?["conversationId"] == .string(id), "\(item)")
        await socket.close()

        // A browser's socket: its token offered as a subprotocol, since it cannot send Authorization.
        let browser = LiveSocket("\(base)/v1/live/chat?after=1", headers: [.secWebSocketProtocol: "melon.live, bearer.\(eoin)"])
        #expect(await browser.until("ready")?.last?["cursor"] == 1, "\(browser.received)")
        await browser.close()

        // Two messages while away; back with the last cursor, in order, then ready.
        for text in ["one", "two"] {
            #expect(try await melon.http.post("/v1/conversations/\(id)/messages", json: #"{"text":"\#(text)"}"#, headers: danaHeaders).status == 201)
        }
        let again = LiveSocket("\(base)/v1/live/chat?after=1", token: eoin)
        let caught = try #require(await again.until("ready"))
        #expect(caught.map { $0["data"]?["message"]?["text"] } == [.string("one"), .string("two"), nil], "\(caught)")
        #expect(caught.last?["cursor"] == 3)

        // Ten sockets of one account at once, not an eleventh.
        var many = [again]
        for _ in 1..<10 { many.append(LiveSocket("\(base)/v1/live/chat", token: eoin)) }
        for socket in many { #expect(await socket.until("ready") != nil) }
        // The eleventh is closed at once, read off the wire (`upgradeRefusal` says why).
        let eleventh = try upgradeRefusal(port: try #require(melon.http.base.port), path: "/v1/live/chat", headers: ["Authorization": "Bearer \(eoin)"])
        #expect(eleventh.status == 101 && eleventh.code == 1013 && eleventh.reason?.contains("at most 10") == true, "an eleventh socket: \(eleventh)")
        for socket in many { await socket.close() }

        // A socket that may not open closes at once, saying why with 4000 plus the status: no token,
        // or an app the chat is not for (the plain request's problem says the same).
        let login = try await melon.http.post("/v1/auth/login", json: #"{"app":"household","email":"eoin@example.org","password":"a long walk by the Liffey eoin"}"#)
        let household = try #require(login.json?["accessToken"].flatMap { if case .string(let text) = $0 { text } else { nil } }, "\(login.text)")
        let port = try #require(melon.http.base.port)
        for (headers, code, reason) in [
            ([:], 4001, "signed-in"),
            (["Sec-WebSocket-Protocol": "melon.live, bearer.not-a-token"], 4001, "token"),
            (["Authorization": "Bearer \(household)"], 4003, "the marketplace or nebula app"),
        ] {
            let refused = try upgradeRefusal(port: port, path: "/v1/live/chat", headers: headers)
            #expect(refused.status == 101 && refused.code == code && refused.reason?.contains(reason) == true, "\(reason): \(refused)")
        }
        let plain = try await melon.http.get("/v1/live/chat", headers: ["Authorization": "Bearer \(household)"])
        #expect(plain.status == 403 && plain.header("content-type") == "application/problem+json", "\(plain.status) \(plain.text)")
        #expect(await melon.process.terminate() == 0)
    }
}
}
