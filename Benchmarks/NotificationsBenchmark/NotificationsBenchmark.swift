import Bus
import Foundation
import NotificationsContract
import NotificationsService
import TestSupport

/// `notifications-benchmark`: payloads built per second in-process, and deliveries per second from
/// enqueue (`notifications.push.send.v1`) until the local APNs server (HTTP/2, TLS, JWT checked) has
/// accepted every one, with the enqueue-to-accepted latency's median and p99: pushes to 1, 10 and
/// 1,000 devices each; the same beside a sandbox host that never answers (a few sandbox devices
/// among them); and with two `notifications` processes.
///
///     TEST_DATABASE_URL=postgres://... .build/release/notifications-benchmark [--runs 3] [--deliveries 2000]
@main
struct NotificationsBenchmark {
    static func main() async throws {
        let arguments = CommandLine.arguments
        func option(_ name: String, _ fallback: Int) -> Int {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
            return Int(arguments[index + 1]) ?? fallback
        }
        let runs = option("--runs", 3), deliveries = option("--deliveries", 2_000)
        for run in 1...runs {
            print("run \(run): payloads built per second: \(Int(payloadsPerSecond(count: 100_000)))")
            func measure(_ name: String, _ body: () async throws -> Result) async {
                do {
                    print("run \(run): \(name): \(try await body())")
                } catch {
                    print("run \(run): \(name): failed: \(error)")
                }
            }
            for devices in [1, 10, 1_000] {
                await measure("1 instance, \(devices) device(s) per push") { try await deliver(deliveries, devicesPerPush: devices) }
            }
            await measure("1 instance, 1 device per push, 5 more at a sandbox host that never answers") {
                try await deliver(deliveries, devicesPerPush: 1, unanswering: 5)
            }
            await measure("2 instances, 1 device per push") { try await deliver(deliveries, devicesPerPush: 1, instances: 2) }
        }
    }

    struct Result: CustomStringConvertible {
        let deliveries: Int
        let seconds: Double
        /// Enqueue to accepted, in milliseconds, sorted.
        let latencies: [Double]
        /// Requests the APNs server refused because their provider token replaced the team's too soon.
        let tokenUpdatesRefused: Int

        var description: String {
            func at(_ share: Double) -> Int { Int(latencies[min(latencies.count - 1, Int(Double(latencies.count) * share))]) }
            return "\(deliveries) deliveries, \(Int(Double(deliveries) / seconds)) per second, enqueue to accepted p50 \(at(0.5)) ms, p99 \(at(0.99)) ms, "
                + "\(tokenUpdatesRefused) refused as token updates"
        }
    }

    static let content = Notifications.Content(
        app: .household, eventType: "household.bill.created", category: "bills",
        alert: .init(title: "New bill", body: "Electricity: €84.20, your share €21.05"), data: ["billId": "b-2291"], collapseKey: "bill-b-2291",
        sound: "default")

    /// The payload and request of one delivery, as the delivery loop builds them.
    static func payloadsPerSecond(count: Int) -> Double {
        let started = ContinuousClock.now
        var bytes = 0
        for _ in 0..<count {
            let request = try! APNsRequest(
                deviceToken: "9f3c2a81d4e5b6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5", bundleID: "ie.melon.household",
                payload: PushPayload.build(content, notification: UUID(), unread: ["bills": 3, "chores": 1]), expiration: Date(),
                collapseID: content.collapseKey, apnsID: UUID())
            bytes += request.payload.count
        }
        precondition(bytes > 0)
        return Double(count) / seconds(started.duration(to: .now))
    }

    /// `count` production deliveries in pushes to `devicesPerPush` devices each (plus, with
    /// `unanswering`, that many sandbox devices whose host never answers, one per push among the
    /// first), by `instances` processes. Times what the production devices got.
    static func deliver(_ count: Int, devicesPerPush: Int, unanswering: Int = 0, instances: Int = 1) async throws -> Result {
        let server = try await APNsTestServer()
        let silent = try await UnansweringHost()
        let broker = try BusHarness.broker(heartbeat: .init(interval: .milliseconds(250), liveness: 3))
        let client = try BusHarness.client(broker.endpoint)
        let databaseURL = try await TestDatabase.freshDatabase()
        let environment = [
            "BROKER_ENDPOINT": broker.endpoint, "DATABASE_URL": databaseURL, "LOG_LEVEL": "error",
            "APNS_KEY_FILE": server.keyFile, "APNS_KEY_ID": APNsTestServer.keyID, "APNS_TEAM_ID": APNsTestServer.teamID,
            "APNS_TOPICS": APNsTestServer.topics, "APNS_PRODUCTION_URL": server.url, "APNS_SANDBOX_URL": silent.url,
            "APNS_CA_FILE": server.certificateFile,
        ]
        let processes = try (0..<instances).map { index in
            try ChildProcess(product: "notifications", environment: environment.merging(["HEALTH_PORT": "\(Ports.free())"]) { $1 }, name: "notifications-\(index)")
        }
        var result: Result?
        try await BusHarness.with([broker, client]) {
            guard await BusHarness.waitForService("notifications", client: client, timeout: .seconds(30)) else { throw Failed(processes[0].output) }
            // Each recipient has one device; a push goes to `devicesPerPush` recipients.
            let recipients = (0..<count).map { _ in UUID().uuidString.lowercased() }
            let sandbox = (0..<unanswering).map { _ in UUID().uuidString.lowercased() }
            let rows = recipients.enumerated().map { index, account in
                "(gen_random_uuid(), '\(account)', 'ios', 'household', '\(String(format: "%064x", index + 1))', 'production')"
            } + sandbox.enumerated().map { index, account in
                "(gen_random_uuid(), '\(account)', 'ios', 'household', '\(String(format: "%064x", count + index + 1))', 'sandbox')"
            }
            try await TestDatabase.run(
                "INSERT INTO notifications.devices (id, account_id, platform, app, token, environment) VALUES \(rows.joined(separator: ", "))",
                on: databaseURL)
            let started = ContinuousClock.now
            var queuedAt: [String: Date] = [:]
            for (index, batch) in stride(from: 0, to: count, by: devicesPerPush).enumerated() {
                let to = Array(recipients[batch..<min(batch + devicesPerPush, count)]) + (index < sandbox.count ? [sandbox[index]] : [])
                let response = try await client.call(Notifications.Push.Send.self, .init(recipients: to, content: content))
                queuedAt[response.pushID] = Date()
            }
            while server.accepted.count < count {
                guard started.duration(to: .now) < .seconds(300) else {
                    throw Failed("\(server.accepted.count) of \(count) accepted in 300 s; \(server.tokenUpdatesRefused) refused as token updates")
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            let elapsed = seconds(started.duration(to: .now))
            let pushOf = try await TestDatabase.rows("SELECT id::text || ' ' || push_id::text FROM notifications.deliveries", on: databaseURL)
                .reduce(into: [String: String]()) { map, line in
                    let parts = line.split(separator: " ")
                    map[String(parts[0])] = String(parts[1])
                }
            let latencies = server.acceptedAt.compactMap { id, at in
                pushOf[id].flatMap { queuedAt[$0] }.map { max(0, at.timeIntervalSince($0) * 1000) }
            }.sorted()
            result = Result(deliveries: count, seconds: elapsed, latencies: latencies, tokenUpdatesRefused: server.tokenUpdatesRefused)
        }
        for process in processes { _ = await process.terminate() }
        await server.shutdown()
        await silent.shutdown()
        return result!
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
