import Bus
import Envelope
import Foundation
import GatewayService
import ServiceLifecycle
import Testing
import TestSupport

extension ServiceStackTests {
/// The gateway over real HTTP, in front of a real broker and echo workers over TCP.
@Suite(.timeLimit(.minutes(10))) struct GatewayTests {
    /// Runs a broker, an echo worker and the gateway (configured by `configure`) around `body`.
    private func withStack(
        worker: Bool = true, configure: @escaping (inout GatewayConfiguration) -> Void = { _ in },
        body: (HTTPTestClient) async throws -> Void
    ) async throws {
        let broker = try BusHarness.broker()
        let endpoint = broker.endpoint
        let (gateway, address) = try GatewayHarness.gateway(endpoint, configure: configure)
        var services: [any Service] = [broker, gateway]
        if worker { services.append(try BusHarness.echoWorker(endpoint)) }
        let probe = try BusHarness.client(endpoint)
        try await BusHarness.with(services + [probe]) {
            if worker { #expect(await BusHarness.waitForService("echo", client: probe)) }
            try await body(try await address.client())
        }
    }

    /// The table of ARCHITECTURE.md, written out again so a change to the mapping fails here.
    static let expectedStatus: [ErrorCode: Int] = [
        .invalid: 400, .unauthenticated: 401, .forbidden: 403, .notFound: 404, .conflict: 409, .gone: 410,
        .tooLarge: 413, .rateLimited: 429, .internal: 500, .unavailable: 503, .deadlineExceeded: 504,
    ]

    @Test func everyErrorCodeBecomesItsStatusAsProblemJSON() async throws {
        try await withStack { http in
            for code in ErrorCode.allCases {
                let reply = try await http.post("/v1/echo", json: #"{"text":"x","fail":"\#(code.rawValue)"}"#)
                #expect(reply.status == Self.expectedStatus[code], "\(code)")
                #expect(reply.header("content-type") == "application/problem+json")
                let problem = try #require(reply.json)
                #expect(problem["code"] == .string(code.rawValue))
                #expect(problem["status"] == .number(Double(reply.status)))
                #expect(problem["type"] == .string("urn:melon:problem:\(code.rawValue)"))
                #expect(problem["requestId"] == reply.header("x-request-id").map(JSONValue.string))
            }
        }
    }

    @Test func invalidInputNamesTheFieldAsTheClientSentIt() async throws {
        try await withStack { http in
            let reply = try await http.post("/v1/echo", json: #"{"text":""}"#)
            #expect(reply.status == 400)
            #expect(reply.json?["fields"] == [["field": "text", "message": "must be 1 to 65,536 characters"]])
            // A number JSON allows but no Swift number holds is refused at the gateway, not a 500.
            let huge = try await http.post("/v1/echo", json: #"{"text":"x","delayMilliseconds":1e999}"#)
            #expect(huge.status == 400 && huge.json?["fields"] == [["field": "body", "message": "has a number out of range"]], "\(huge.text)")
            let wrongKind = try await http.post("/v1/echo", json: #"{"text":5}"#)
            #expect(wrongKind.status == 400 && wrongKind.json?["fields"] == [["field": "text", "message": "must be a string"]], "\(wrongKind.text)")
        }
    }

    @Test func malformedBodiesGet400WithWhereTheyWentWrong() async throws {
        try await withStack { http in
            let broken = try await http.post("/v1/echo", json: "{\"text\": \n  }")
            #expect(broken.status == 400)
            #expect(broken.json?["detail"] == "the body is not valid JSON: unexpected input at line 2, column 3")
            #expect(broken.json?["fields"] == [["field": "body", "message": "the body is not valid JSON: unexpected input at line 2, column 3"]])
            let array = try await http.post("/v1/echo", json: "[1, 2]")
            #expect(array.status == 400)
            #expect(array.json?["detail"] == "the body must be a JSON object")
            let empty = try await http.post("/v1/echo", json: "")
            #expect(empty.json?["detail"] == "the body is empty; send one JSON object")
            let form = try await http.send("POST", "/v1/echo", body: Array("text=x".utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(form.status == 415)
            #expect(form.json?["code"] == "unsupported_media_type")
        }
    }

    @Test func aBodyOverTheLimitGets413() async throws {
        try await withStack(configure: { $0.maxBodyBytes = 4096 }) { http in
            let text = String(repeating: "a", count: 5000)
            let reply = try await http.post("/v1/echo", json: #"{"text":"\#(text)"}"#)
            #expect(reply.status == 413)
            #expect(reply.json?["code"] == "too_large")
            let fits = try await http.post("/v1/echo", json: #"{"text":"\#(String(repeating: "a", count: 4000))"}"#)
            #expect(fits.status == 200)
        }
    }

    @Test func unknownRoutesGet404AndWrongMethods405AsProblems() async throws {
        try await withStack { http in
            let missing = try await http.get("/v1/nothing-here")
            #expect(missing.status == 404)
            #expect(missing.header("content-type") == "application/problem+json")
            #expect(missing.json?["detail"] == "no route for GET /v1/nothing-here")
            let wrongMethod = try await http.send("DELETE", "/v1/echo")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("allow") == "POST, GET")
        }
    }

    @Test func aSlowOperationGets504AtTheRequestDeadline() async throws {
        try await withStack { http in
            let started = ContinuousClock.now
            // A handler far slower than the deadline, so that a loaded machine cannot blur the two.
            let reply = try await http.post("/v1/echo", json: #"{"text":"x","delayMilliseconds":8000}"#, headers: ["X-Request-Timeout-Ms": "300"])
            #expect(reply.status == 504)
            #expect(reply.json?["code"] == "deadline_exceeded")
            #expect(ContinuousClock.now - started < .seconds(5), "answered at the deadline, not when the handler finished")
            let badTimeout = try await http.post("/v1/echo", json: #"{"text":"x"}"#, headers: ["X-Request-Timeout-Ms": "0"])
            #expect(badTimeout.json?["fields"] == [["field": "X-Request-Timeout-Ms", "message": "must be a whole number of milliseconds from 100 to 60000"]])
        }
    }

    @Test func aServiceWithoutWorkersGets503Quickly() async throws {
        try await withStack(worker: false) { http in
            let started = ContinuousClock.now
            let reply = try await http.post("/v1/echo", json: #"{"text":"x"}"#)
            #expect(reply.status == 503)
            #expect(reply.header("retry-after") == "1")
            #expect(ContinuousClock.now - started < .seconds(5), "answered from the MMI lookup, not at the 10 s deadline")
        }
    }

    @Test func parametersFromThePathAndQueryBecomeData() async throws {
        try await withStack { http in
            #expect(try await http.get("/v1/echo?text=hello%20there").json?["text"] == "hello there")
            #expect(try await http.get("/v1/echo/hello").json?["text"] == "hello")
            #expect(try await http.get("/v1/echo/h%C3%A9llo%20there").json?["text"] == "héllo there", "path parameters are percent-decoded")
            let astral = String(repeating: "𝒒", count: 200)
            let long = try await http.get("/v1/echo/\(astral.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!)")
            #expect(long.status == 200 && long.json?["text"] == .string(astral), "200 characters outside the BMP: \(long.text.prefix(300))")
            let naughty = "𝑻𝒉𝒆 𝒒𝒖𝒊𝒄𝒌 𝒃𝒓𝒐𝒘𝒏 𝒇𝒐𝒙 𝒋𝒖𝒎𝒑𝒔 𝒐𝒗𝒆𝒓 𝒕𝒉𝒆 𝒍𝒂𝒛𝒚 𝒅𝒐𝒈"
            let fox = try await http.get("/v1/echo/\(naughty.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(fox.status == 200 && fox.json?["text"] == .string(naughty), "\(fox.text.prefix(400))")
            // Sent as bytes: an HTTP client library would not send a path that is not UTF-8 as it is.
            let badEncoding = try await Self.rawGet("/v1/echo/%FF%FE", port: try #require(http.base.port))
            #expect(badEncoding.status == 400 && badEncoding.json?["fields"] == [["field": "text", "message": "is not valid percent-encoded UTF-8"]],
                    "\(badEncoding.text)")
            let missing = try await http.get("/v1/echo")
            #expect(missing.status == 400)
            #expect(missing.json?["fields"] == [["field": "text", "message": "is required"]])
        }
    }

    @Test func requestIDsAndTracesComeBackOnEveryResponse() async throws {
        try await withStack { http in
            let trace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
            let reply = try await http.post("/v1/echo", json: #"{"text":"x"}"#, headers: ["X-Request-Id": "client-42", "traceparent": trace])
            #expect(reply.header("x-request-id") == "client-42")
            let returned = try #require(reply.header("traceparent").flatMap(TraceParent.init))
            #expect(returned.traceID == "0af7651916cd43dd8448eb211c80319c")
            #expect(returned.parentID != "b7ad6b7169203331", "the gateway's own span")
            let unsafe = try await http.get("/v1/nothing", headers: ["X-Request-Id": "bad id\twith spaces"])
            #expect(unsafe.header("x-request-id").map { $0 != "bad id\twith spaces" && !$0.isEmpty } == true)
            let badKey = try await http.post("/v1/echo", json: #"{"text":"x"}"#, headers: ["Idempotency-Key": String(repeating: "k", count: 201)])
            #expect(badKey.json?["fields"] == [["field": "Idempotency-Key", "message": "must be 1 to 200 visible ASCII characters"]])
        }
    }

    @Test func browsersGetCORSHeaders() async throws {
        try await withStack { http in
            let preflight = try await http.send("OPTIONS", "/v1/echo", headers: [
                "Origin": "https://app.example.org", "Access-Control-Request-Method": "POST",
            ])
            #expect(preflight.status == 204 || preflight.status == 200)
            #expect(preflight.header("access-control-allow-origin") == "*")
            #expect(preflight.header("access-control-allow-headers")?.lowercased().contains("idempotency-key") == true)
            let failed = try await http.get("/v1/nothing", headers: ["Origin": "https://app.example.org"])
            #expect(failed.header("access-control-allow-origin") == "*", "errors carry CORS headers too")
        }
    }

    @Test func onlyListedOriginsGetCORSHeaders() async throws {
        try await withStack(configure: { $0.corsAllowedOrigins = ["https://app.example.org", "https://admin.example.org"] }) { http in
            for origin in ["https://app.example.org", "https://admin.example.org"] {
                let preflight = try await http.send("OPTIONS", "/v1/echo", headers: ["Origin": origin, "Access-Control-Request-Method": "POST"])
                #expect(preflight.header("access-control-allow-origin") == origin)
                let reply = try await http.post("/v1/echo", json: #"{"text":"x"}"#, headers: ["Origin": origin])
                #expect(reply.header("access-control-allow-origin") == origin)
            }
            let stranger = try await http.post("/v1/echo", json: #"{"text":"x"}"#, headers: ["Origin": "https://evil.example.com"])
            #expect(stranger.status == 200)
            #expect(stranger.header("access-control-allow-origin") == nil)
        }
    }

    @Test func readinessFollowsTheServicesWorkers() async throws {
        let broker = try BusHarness.broker()
        let endpoint = broker.endpoint
        let (gateway, address) = try GatewayHarness.gateway(endpoint)
        try await BusHarness.with([broker, gateway]) {
            let http = try await address.client()
            #expect(try await http.get("/healthz").status == 200)
            let unready = try await http.get("/readyz")
            #expect(unready.status == 503)
            #expect(unready.json == ["status": "unready", "broker": true, "services": ["echo": false]])

            let worker = try ChildProcess(product: "echo-worker", environment: ["BROKER_ENDPOINT": endpoint, "HEARTBEAT_INTERVAL": "100"])
            #expect(await eventually(timeout: .seconds(20)) { try await http.get("/readyz").status == 200 })
            #expect(try await http.get("/readyz").json == ["status": "ready", "broker": true, "services": ["echo": true]])

            #expect(await worker.terminate() == 0)
            #expect(await eventually(timeout: .seconds(5)) { try await http.get("/readyz").status == 503 })
        }
    }

    /// Replies carry tokens and personal data: no cache may keep them, and no browser may guess
    /// their type, errors included.
    @Test func repliesForbidCachingAndTypeSniffing() async throws {
        try await withStack { http in
            for reply in [try await http.post("/v1/echo", json: #"{"text":"x"}"#), try await http.post("/v1/echo", json: #"{"text":"x","fail":"invalid"}"#)] {
                #expect(reply.header("cache-control") == "no-store" && reply.header("x-content-type-options") == "nosniff", "\(reply.headers)")
            }
        }
    }

    /// A connection that sends nothing is closed after the idle timeout, so idle sockets cannot pile up.
    @Test func anIdleConnectionIsClosed() async throws {
        try await withStack(configure: { $0.idleTimeout = .milliseconds(300) }) { http in
            let port = try #require(http.base.port)
            let started = ContinuousClock.now
            let closed = try await Self.closedByTheServer(port: port, within: .seconds(10))
            #expect(closed, "still open after 10 s")
            #expect(ContinuousClock.now - started >= .milliseconds(250), "closed before the idle timeout")
        }
    }

    /// GET `path` exactly as given, over a socket of its own: the status and the body (the gateway
    /// answers problems with a Content-Length).
    static func rawGet(_ path: String, port: Int) async throws -> HTTPTestClient.Reply {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0, "no connection to port \(port)")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let status = parts.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return HTTPTestClient.Reply(status: status, headers: [:], body: Array(parts.dropFirst().joined(separator: "\r\n\r\n").utf8))
    }

    /// Connects to the gateway, sends nothing, and says whether the gateway closes the connection
    /// within `limit`.
    static func closedByTheServer(port: Int, within limit: Duration) async throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return false }
        let end = ContinuousClock.now + limit
        var byte: UInt8 = 0
        while ContinuousClock.now < end {
            let received = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT))
            if received == 0 || received < 0 && errno != EAGAIN && errno != EWOULDBLOCK { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func metricsAndTheDocumentAreServed() async throws {
        try await withStack { http in
            _ = try await http.post("/v1/echo", json: #"{"text":"x"}"#)
            let metrics = try await http.get("/metrics")
            #expect(metrics.text.contains(#"melon_gateway_http_requests_total{method="POST",route="/v1/echo",status="200"}"#))
            let document = try #require(try await http.get("/openapi.json").json)
            #expect(document["openapi"] == "3.1.0")
            let operationIDs = Echo.Message.Repeat.http.map { document["paths"]?[$0.path]?[$0.method.rawValue.lowercased()]?["operationId"] }
            #expect(operationIDs == ["echoPost", "echoQuery", "echoPath"])
        }
    }
}
}
