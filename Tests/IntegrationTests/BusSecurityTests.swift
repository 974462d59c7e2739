import Bus
import Envelope
import Foundation
import Synchronization
import Testing
import TestSupport
import ZeroMQ

/// CurveZMQ on the bus, through a real `broker` and real `echo-worker` processes: only listed keys
/// get in, each member only as far as its rights, and every refusal is counted with its name.
@Suite(.timeLimit(.minutes(5))) struct BusSecurityTests {
    struct Note: Codable, Sendable, Equatable { var text: String }

    static func code(_ result: Result<[UInt8], OperationError>) -> ErrorCode? {
        if case .failure(let error) = result { error.code } else { nil }
    }

    @Test func onlyListedKeysGetInAndEachMemberOnlyAsFarAsItsRights() async throws {
        let broker = try CurveKeyPair.generate()
        let names = ["echo", "tester", "pdf-email", "auth", "gateway"]
        var keys: [String: CurveKeyPair] = [:]
        for name in names { keys[name] = try CurveKeyPair.generate() }
        let (endpoint, events, publish, healthPort) = (Ports.freeEndpoint(), Ports.freeEndpoint(), Ports.freeEndpoint(), Ports.free())
        func startBroker(members: [String: CurveKeyPair]) throws -> ChildProcess {
            try ChildProcess(product: "broker", environment: [
                "BROKER_ENDPOINT": endpoint, "EVENTS_ENDPOINT": events, "EVENTS_PUBLISH_ENDPOINT": publish, "HEALTH_PORT": "\(healthPort)",
                "HEARTBEAT_INTERVAL": "250", "BUS_CURVE": "on", "BUS_SECRET_KEY": broker.secretKey,
                "BUS_MEMBERS": members.map { "\($0.key):\($0.value.publicKey)" }.joined(separator: ","),
            ])
        }
        var brokerProcess = try startBroker(members: keys)
        let metrics = HTTPTestClient(base: URL(string: "http://127.0.0.1:\(healthPort)")!)
        #expect(await eventually(timeout: .seconds(20)) { try await metrics.get("/readyz").status == 200 }, "\(brokerProcess.output)")
        @Sendable func refusalCount(_ member: String, _ reason: String) async throws -> Int {
            try await metrics.get("/metrics").text.split(separator: "\n").first {
                $0.hasPrefix("melon_broker_refusals_total") && $0.contains(#"member="\#(member)""#) && $0.contains(#"reason="\#(reason)""#)
            }.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }.map { Int($0) } ?? 0
        }
        @Sendable func refusals(_ member: String, _ reason: String) async throws -> Bool { try await refusalCount(member, reason) > 0 }
        func worker(secret: String, brokerKey: String = broker.publicKey, name: String) throws -> ChildProcess {
            try ChildProcess(product: "echo-worker", environment: [
                "BROKER_ENDPOINT": endpoint, "HEARTBEAT_INTERVAL": "250", "WORKERS": "2",
                "BUS_CURVE": "on", "BUS_SECRET_KEY": secret, "BUS_BROKER_KEY": brokerKey,
            ], name: name)
        }
        func credentials(_ name: String) -> BusCredentials { BusCredentials(keyPair: keys[name]!, brokerKey: broker.publicKey) }

        // Three workers that must not serve: an unlisted key, echo's key talking to a broker it
        // takes for someone else, and pdf-email's listed key offering to serve echo.
        let rotated = try CurveKeyPair.generate()
        let unlisted = try worker(secret: rotated.secretKey, name: "echo-unlisted")
        let misled = try worker(secret: keys["echo"]!.secretKey, brokerKey: try CurveKeyPair.generate().publicKey, name: "echo-misled")
        let overreaching = try worker(secret: keys["pdf-email"]!.secretKey, name: "echo-overreaching")
        let tester = try BusHarness.client(endpoint) { $0.credentials = credentials("tester") }
        let stranger = try BusHarness.client(endpoint)
        try await BusHarness.with([tester, stranger]) {
            #expect(await eventually(timeout: .seconds(20)) { try await refusals("unknown", "unknown_key") }, "\(unlisted.output)")
            #expect(await eventually(timeout: .seconds(20)) { try await refusals("pdf-email", "serve") }, "\(overreaching.output)")
            #expect(try await tester.isAvailable(service: "echo") == false, "no worker of echo got in")
            await #expect(throws: OperationError.self, "nobody serves echo") {
                try await tester.call(Echo.Message.Repeat.self, .init(text: "anyone?"), options: CallOptions(timeout: .seconds(1)))
            }

            let echo = try worker(secret: keys["echo"]!.secretKey, name: "echo-listed")
            #expect(await BusHarness.waitForService("echo", client: tester, timeout: .seconds(20)), "\(echo.output)")
            #expect(try await tester.call(Echo.Message.Repeat.self, .init(text: "hello")).text == "hello")
            var served: Set<String> = []
            for index in 0..<20 { served.insert(try await tester.call(Echo.Message.Repeat.self, .init(text: "n\(index)")).worker) }
            #expect(served.allSatisfy { $0.hasSuffix(":\(echo.pid)") }, "only the listed worker serves: \(served)")

            // Beyond its rights: an erasure only auth may send, an operation under another service's
            // name, a request speaking for a user (the gateway's alone).
            for (service, type) in [("notifications", "notifications.account.erase.v1"), ("echo", "notifications.account.erase.v1"),
                                    ("pdf-email", "pdf-email.mail.send.v1")] {
                let refused = try await tester.call(service: service, type: type, data: Array(#"{"account":"a","email":"a@b.ie"}"#.utf8), options: CallOptions())
                #expect(Self.code(refused) == .forbidden, "\(type) via \(service): \(refused)")
            }
            // A service calls only what its contract declares: pdf-email sends no pushes and ends no sessions.
            let mailer = try BusHarness.client(endpoint) { $0.credentials = credentials("pdf-email") }
            try await BusHarness.with([mailer]) {
                for type in ["notifications.push.send.v1", "notifications.sessions.end.v1"] {
                    let refused = try await mailer.call(service: "notifications", type: type, data: Array("{}".utf8), options: CallOptions(timeout: .seconds(5)))
                    #expect(Self.code(refused) == .forbidden, "\(type) from pdf-email: \(refused)")
                }
            }
            var asUser = CallOptions(), asAccount = CallOptions(), asClient = CallOptions()
            (asUser.authType, asUser.authID) = ("app_user", "someone")
            asAccount.authID = "someone"
            asClient.clientIP = "198.51.100.7"
            for options in [asUser, asAccount, asClient] {
                let speaking = try await tester.call(service: "echo", type: Echo.Message.Repeat.type, data: Array(#"{"text":"hi"}"#.utf8), options: options)
                #expect(Self.code(speaking) == .forbidden, "\(options): \(speaking)")
            }
            // However the member's name is written: an escaped key is the same key to the worker.
            let raw = try RawPeer(connectingTo: endpoint, identity: "raw", context: ZMQContext(), curve: (keys["tester"]!, serverKey: broker.publicKey))
            let escaped = #"{"specversion":"1.0","id":"e1","source":"urn:melon:tester","type":"echo.message.repeat.v1","time":"2026-11-25T12:00:00Z","expirytime":"2099-01-01T00:00:00Z","auth\u0069d":"someone","data":{"text":"hi"}}"#
            try raw.send(MDP.clientRequest(service: "echo", body: [Array(escaped.utf8)]))
            let reply = try #require(try await raw.receive(timeout: .seconds(10)), "the broker answers")
            #expect(String(decoding: reply.last ?? [], as: UTF8.self).contains(#""outcome":"forbidden""#), "\(String(decoding: reply.last ?? [], as: UTF8.self))")
            let call = try await refusals("tester", "call"), actsForUser = try await refusals("tester", "acts_for_user")
            #expect(call && actsForUser)

            // A client without CURVE never reaches the broker.
            await #expect(throws: OperationError.self) {
                try await stranger.call(Echo.Message.Repeat.self, .init(text: "let me in"), options: CallOptions(timeout: .seconds(1)))
            }

            // Live events: auth may publish and the gateway hears it; echo may not publish.
            let subscriber = try EventSubscriber(endpoint: events, topics: ["auth."], credentials: credentials("gateway"), logger: BusHarness.logger("gateway"))
            let authPublisher = try EventPublisher(endpoint: publish, processName: "auth", credentials: credentials("auth"), logger: BusHarness.logger("auth"))
            let echoPublisher = try EventPublisher(endpoint: publish, processName: "echo", credentials: credentials("echo"), logger: BusHarness.logger("echo"))
            let heard = Heard()
            let listening = Task { for await case .event(_, let body) in subscriber.deliveries { heard.add(LiveEvent<Note>.decode(body)?.data) } }
            try await BusHarness.with([subscriber, authPublisher, echoPublisher]) {
                #expect(await eventually(timeout: .seconds(10)) {
                    echoPublisher.publish("auth.forged", Note(text: "forged"))
                    authPublisher.publish("auth.sessions.revoked.v1", Note(text: "from auth"))
                    return heard.notes.contains(Note(text: "from auth"))
                })
                #expect(!heard.notes.contains(Note(text: "forged")), "echo's events never reach the proxy")
                let publishRefused = try await refusals("echo", "publish")
                #expect(publishRefused)
            }
            listening.cancel()
            #expect(await echo.terminate() == 0)
            // A refused worker backs off (100 ms doubling to 5 s) instead of offering READY again at once.
            let overreach = try await refusalCount("pdf-email", "serve")
            #expect(overreach < 60, "\(overreach) READYs refused from pdf-email's two connections")

            // A key rotation: the broker restarts with echo's new key listed, and the worker holding
            // it, refused until now, keeps knocking and gets in.
            #expect(await brokerProcess.terminate() == 0)
            keys["echo"] = rotated
            brokerProcess = try startBroker(members: keys)
            #expect(await BusHarness.waitForService("echo", client: tester, timeout: .seconds(20)), "\(unlisted.output)")
            #expect(try await tester.call(Echo.Message.Repeat.self, .init(text: "rotated")).worker.hasSuffix(":\(unlisted.pid)"))
        }
        for process in [unlisted, misled, overreaching] { process.kill() }
        #expect(await brokerProcess.terminate() == 0)
    }
}

private final class Heard: Sendable {
    private let state = Mutex<[BusSecurityTests.Note]>([])
    func add(_ note: BusSecurityTests.Note?) { if let note { state.withLock { $0.append(note) } } }
    var notes: [BusSecurityTests.Note] { state.withLock { $0 } }
}
