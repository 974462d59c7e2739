import Bus
import Envelope
import Foundation
import NotificationsContract
import PostgresSupport
import Testing
import TestSupport

/// The settings that point a notifications process at the local APNs server.
func apnsSettings(_ server: APNsTestServer) -> [String: String] {
    [
        "APNS_KEY_FILE": server.keyFile, "APNS_KEY_ID": APNsTestServer.keyID, "APNS_TEAM_ID": APNsTestServer.teamID,
        "APNS_TOPICS": APNsTestServer.topics, "APNS_PRODUCTION_URL": server.url, "APNS_SANDBOX_URL": server.url,
        "APNS_CA_FILE": server.certificateFile, "PUSH_LEASE": "2000", "PUSH_RETRY_FIRST": "50", "PUSH_RETRY_MAX": "500",
    ]
}

extension ServiceStackTests {
    /// Notifications as clients and services use it: devices over HTTP, pushes through another
    /// service's outbox, APNs over HTTP/2 (the local server), and instances that die mid-fan-out.
    @Suite(.timeLimit(.minutes(5))) struct NotificationsStackTests {
        static let token = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"

        @Test func aDeviceRegisteredOverHTTPGetsOnePushFromAnotherServicesOutboxAndLogoutStopsItsPushes() async throws {
            let server = try await APNsTestServer()
            let stack = try await AuthStack(notifications: apnsSettings(server))
            try await stack.with { http in
                _ = try await AuthJourneyTests.signedUp(stack, http, email: "ana@tcd.ie", username: "ana_n")
                // Signed in to the household app: the device gets that app's pushes.
                let login = try await http.post("/v1/auth/login", ["app": "household", "email": "ana@tcd.ie", "password": "correct horse battery staple ana_n"])
                let anaAccess = try #require(AuthJourneyTests.string(login, "accessToken"))
                let bearer = ["Authorization": "Bearer \(anaAccess)"]
                let account = try #require(try AuthJourneyTests.claims(of: anaAccess)["sub"] as? String)
                let registered = try await http.post("/v1/devices", [
                    "platform": "ios", "token": .string(Self.token), "environment": "production", "timeZone": "Europe/Dublin",
                ], token: anaAccess)
                #expect(AuthJourneyTests.string(registered, "app") == "household", "the app of the session: \(registered.text)")
                #expect(registered.status == 201, "\(registered.text)")
                let device = try #require(AuthJourneyTests.string(registered, "id"))
                #expect(AuthJourneyTests.string(registered, "tokenEnding") == String(Self.token.suffix(8)))
                let bad = try await http.post("/v1/devices", ["platform": "ios", "app": "household", "token": "xyz", "environment": "production"], token: anaAccess)
                #expect(bad.status == 400 && AuthJourneyTests.fields(bad) == ["token"], "\(bad.text)")

                // Another member sees nothing of Ana's and cannot remove her device.
                let ben = try await AuthJourneyTests.signedUp(stack, http, email: "ben@tcd.ie", username: "ben_n")
                #expect(try await http.get("/v1/devices", headers: ["Authorization": "Bearer \(ben.access)"]).text.contains(device) == false)
                #expect(try await http.send("DELETE", "/v1/devices/\(device)", headers: ["Authorization": "Bearer \(ben.access)"]).status == 404)

                // A household service's push, through its outbox in its own schema.
                let household = try Database(url: DatabaseURL(stack.databaseURL), schema: "household_test", maximumConnections: 2, logger: BusHarness.logger("household"))
                let client = try BusHarness.client(stack.broker.endpoint)
                let relay = OutboxRelay(database: household, bus: client)
                try await BusHarness.with([household, client, relay]) {
                    _ = try await household.migrate([])
                    try await household.transaction { connection in
                        try await household.enqueue(Notifications.Push.Send.self, .init(
                            recipients: [account],
                            content: .init(app: .household, eventType: "household.bill.created", category: "bills",
                                           alert: .init(title: "New bill", body: "Electricity: €84.20"), data: ["billId": "b-1"])),
                            on: connection)
                    }
                    #expect(await eventually(timeout: .seconds(20)) { server.accepted.count == 1 }, "\(stack.notifications?.output ?? "")")
                }
                let received = try #require(server.received.first)
                #expect(server.received.count == 1 && received.problems == [], "\(received.problems)")
                #expect(received.token == Self.token && received.headers["apns-topic"] == "ie.melon.household")
                #expect(received.payload?["aps"]?["badge"] == 1 && received.payload?["aps"]?["alert"]?["title"] == "New bill")

                let inbox = try await http.get("/v1/notifications?app=household", headers: bearer)
                #expect(inbox.status == 200 && inbox.text.contains("Electricity"), "\(inbox.text)")
                #expect(try await http.get("/v1/notifications/badges?app=household", headers: bearer).text.contains(#""total":1"#))
                let read = try await http.post("/v1/notifications/read", ["app": "household", "all": true], token: anaAccess)
                #expect(read.status == 200 && read.text.contains(#""marked":1"#), "\(read.text)")

                // Logging out removes the device of that session.
                #expect(try await http.post("/v1/auth/logout", [:], token: anaAccess).status == 200)
                let again = try await http.post("/v1/auth/login", ["app": "household", "email": "ana@tcd.ie", "password": "correct horse battery staple ana_n"])
                let access = try #require(AuthJourneyTests.string(again, "accessToken"))
                let gone = await eventually(timeout: .seconds(20)) {
                    (try? await http.get("/v1/devices", headers: ["Authorization": "Bearer \(access)"]).text.contains(device)) == false
                }
                #expect(gone, "the logged-out session's device is still listed")
            }
            await server.shutdown()
        }

        @Test func killingAnInstanceMidFanOutLosesAndDuplicatesNothing() async throws {
            let server = try await APNsTestServer()
            let broker = try BusHarness.broker(heartbeat: .init(interval: .milliseconds(250), liveness: 3))
            let client = try BusHarness.client(broker.endpoint)
            let databaseURL = try await TestDatabase.freshDatabase()
            let environment = apnsSettings(server).merging([
                "BROKER_ENDPOINT": broker.endpoint, "HEARTBEAT_INTERVAL": "250", "DATABASE_URL": databaseURL, "PUSH_CONCURRENCY": "16",
            ]) { $1 }
            let first = try ChildProcess(product: "notifications", environment: environment.merging(["HEALTH_PORT": "\(Ports.free())"]) { $1 }, name: "notifications-1")
            let second = try ChildProcess(product: "notifications", environment: environment.merging(["HEALTH_PORT": "\(Ports.free())"]) { $1 }, name: "notifications-2")
            try await BusHarness.with([broker, client]) {
                #expect(await BusHarness.waitForService("notifications", client: client, timeout: .seconds(30)), "\(first.output)")
                let recipients = (0..<200).map { _ in UUID().uuidString.lowercased() }
                let rows = recipients.enumerated().map { index, account in
                    "(gen_random_uuid(), '\(account)', 'ios', 'household', '\(String(format: "%064x", index + 1))', 'production')"
                }
                try await TestDatabase.run(
                    "INSERT INTO notifications.devices (id, account_id, platform, app, token, environment) VALUES \(rows.joined(separator: ", "))",
                    on: databaseURL)
                server.hold()
                let sent = try await client.call(Notifications.Push.Send.self, .init(
                    recipients: recipients, content: .init(app: .household, eventType: "household.grocery.shopping", category: "groceries",
                                                           alert: .init(body: "Ben is going shopping"))))
                #expect(sent.deliveries == 200)
                // Both instances have pushes in flight, unanswered: one of them dies.
                #expect(await eventually(timeout: .seconds(20)) { server.connections == 2 && server.received.count >= 32 }, "\(server.received.count)")
                first.kill()
                #expect(await eventually(timeout: .seconds(10)) { server.connections == 1 })
                server.release()
                // Every delivery recorded sent: none is claimed again, so no push is still to come.
                #expect(await eventually(timeout: .seconds(60)) {
                    try await TestDatabase.integer("SELECT count(*)::int FROM notifications.deliveries WHERE status = 'sent'", on: databaseURL) == 200
                }, "\(server.accepted.count) of 200 accepted")
                #expect(server.accepted.count == 200 && server.accepted.values.allSatisfy { $0 == 1 }, "each push accepted once")
                #expect(server.received.count > 200, "the dead instance's claimed pushes were sent again, with their apns-id")
                _ = second
            }
            await server.shutdown()
        }
    }
}
