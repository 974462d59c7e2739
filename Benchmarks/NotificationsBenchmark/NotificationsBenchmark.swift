import Bus
import Foundation
import NotificationsContract
import NotificationsService
import TestSupport

/// `notifications-benchmark`: payloads built per second in-process, and pushes per second from
/// enqueue (one `notifications.push.send.v1` to many recipients) until the local APNs server (HTTP/2,
/// TLS, JWT checked) has accepted every one, with one and with two `notifications` processes.
///
///     TEST_DATABASE_URL=postgres://... .build/release/notifications-benchmark [--runs 3] [--pushes 2000]
@main
struct NotificationsBenchmark {
    static func main() async throws {
        let arguments = CommandLine.arguments
        func option(_ name: String, _ fallback: Int) -> Int {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
            return Int(arguments[index + 1]) ?? fallback
        }
        let runs = option("--runs", 3), pushes = option("--pushes", 2_000)
        for run in 1...runs {
            print("run \(run): payloads built per second: \(Int(payloadsPerSecond(count: 100_000)))")
            for instances in [1, 2] {
                let rate = try await pushesPerSecond(pushes, instances: instances)
                print("run \(run): \(instances) instance(s): \(pushes) pushes, \(Int(rate)) pushes/s from enqueue to accepted by APNs")
            }
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

    static func pushesPerSecond(_ count: Int, instances: Int) async throws -> Double {
        let server = try await APNsTestServer()
        let broker = try BusHarness.broker(heartbeat: .init(interval: .milliseconds(250), liveness: 3))
        let client = try BusHarness.client(broker.endpoint)
        let databaseURL = try await TestDatabase.freshDatabase()
        let environment = [
            "BROKER_ENDPOINT": broker.endpoint, "DATABASE_URL": databaseURL, "LOG_LEVEL": "warning",
            "APNS_KEY_FILE": server.keyFile, "APNS_KEY_ID": APNsTestServer.keyID, "APNS_TEAM_ID": APNsTestServer.teamID,
            "APNS_TOPICS": "household=ie.melon.household", "APNS_PRODUCTION_URL": server.url, "APNS_SANDBOX_URL": server.url,
            "APNS_CA_FILE": server.certificateFile,
        ]
        let processes = try (0..<instances).map { index in
            try ChildProcess(product: "notifications", environment: environment.merging(["HEALTH_PORT": "\(Ports.free())"]) { $1 }, name: "notifications-\(index)")
        }
        var rate = 0.0
        try await BusHarness.with([broker, client]) {
            guard await BusHarness.waitForService("notifications", client: client, timeout: .seconds(30)) else { throw Failed(processes[0].output) }
            let recipients = (0..<count).map { _ in UUID().uuidString.lowercased() }
            let rows = recipients.enumerated().map { index, account in
                "(gen_random_uuid(), '\(account)', 'ios', 'household', '\(String(format: "%064x", index + 1))', 'production')"
            }
            try await TestDatabase.run(
                "INSERT INTO notifications.devices (id, account_id, platform, app, token, environment) VALUES \(rows.joined(separator: ", "))",
                on: databaseURL)
            let started = ContinuousClock.now
            var sent = 0
            for batch in stride(from: 0, to: count, by: 1_000) {
                let response = try await client.call(Notifications.Push.Send.self, .init(
                    recipients: Array(recipients[batch..<min(batch + 1_000, count)]), content: content))
                sent += response.deliveries
            }
            guard sent == count else { throw Failed("\(sent) deliveries queued of \(count)") }
            while server.accepted.count < count {
                guard started.duration(to: .now) < .seconds(300) else { throw Failed("\(server.accepted.count) of \(count) accepted in 300 s") }
                try await Task.sleep(for: .milliseconds(5))
            }
            rate = Double(count) / seconds(started.duration(to: .now))
        }
        for process in processes { _ = await process.terminate() }
        await server.shutdown()
        return rate
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
