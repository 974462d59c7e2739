import Envelope
import Foundation
import NotificationsContract
@testable import NotificationsService
import Testing
import TestSupport

/// What a push may be and whom it reaches: silent pushes, erased accounts, the payload's size, the device's app.
@Suite(.timeLimit(.minutes(2))) struct PushRulesTests {
    static var recipient: String { NotificationsHarness.account.uuidString.lowercased() }

    @Test func aSilentPushWakesTheAppWithoutAnInboxItemOrABadge() async throws {
        try await NotificationsHarness.with { harness in
            try await PushDeliveryTests.register(harness)
            _ = try await PushDeliveryTests.send(harness, PushDeliveryTests.bill())
            let silent = try await PushDeliveryTests.send(harness, .init(recipients: [Self.recipient], content: .init(
                app: .household, eventType: "household.list.synced", category: "groceries", data: ["listId": "l-1"], contentAvailable: true)))
            #expect(silent.notifications == 0 && silent.deliveries == 1)
            try await harness.deliver { harness.server.accepted.count == 2 }
            let received = try #require(harness.server.received.first { $0.headers["apns-push-type"] == "background" })
            #expect(received.payload?["aps"] == ["content-available": 1], "no alert, sound or badge")
            #expect(received.payload?["melon"]?["id"] == nil && received.payload?["melon"]?["data"] == ["listId": "l-1"])
            let badges = try await harness.call(Notifications.Inbox.Badges.self, .init(app: .household)).get()
            #expect(badges.total == 1, "only the bill counts")
            #expect(try await harness.call(Notifications.Inbox.List.self, .init(app: .household)).get().notifications.count == 1)
        }
    }

    @Test func pushesAndSchedulesForAnErasedAccountAreDropped() async throws {
        try await NotificationsHarness.with { harness in
            try await PushDeliveryTests.register(harness)
            let other = UUID()
            _ = try await harness.call(Notifications.Account.Erase.self, .init(account: Self.recipient, email: "mei@tcd.ie"), source: "urn:melon:auth").get()
            // An outbox delivers a push and a reminder for the account after its erasure.
            let late = try await PushDeliveryTests.send(harness, .init(
                recipients: [Self.recipient, other.uuidString.lowercased()],
                content: .init(app: .household, eventType: "household.bill.created", category: "bills", alert: .init(body: "late"))))
            #expect(late.notifications == 1 && late.deliveries == 0, "only the other account's inbox item")
            let reminder = try await harness.call(Notifications.Schedule.Set.self, .init(
                key: "deadline", recipient: Self.recipient, start: "2027-03-16T10:00", timeZone: "UTC",
                content: .init(app: .melon, eventType: "tax.deadline.reminder", category: "deadlines", alert: .init(title: "Due soon"))),
                source: "urn:melon:tax-form").get()
            #expect(reminder.nextAt == nil)
            #expect(try await harness.integer("SELECT count(*)::int FROM notifications WHERE account_id = '\(Self.recipient)'") == 0)
            #expect(try await harness.integer("SELECT count(*)::int FROM schedules") == 0)
        }
    }

    /// One rule, in bytes of the payload a device gets: a body that makes it pass 4,096 bytes is
    /// refused naming the body, whatever its characters, unless the sender asked for it to be shortened.
    @Test func theBodyIsBoundByTheBytesOfThePayloadAndShortenedOnlyWhenAsked() async throws {
        try await NotificationsHarness.with { harness in
            try await PushDeliveryTests.register(harness)
            func send(_ body: String, truncate: Bool? = nil) async throws -> Result<Notifications.Push.Send.Response, OperationError> {
                try await harness.call(Notifications.Push.Send.self, .init(recipients: [Self.recipient], content: .init(
                    app: .household, eventType: "household.board.posted", category: "board", alert: .init(body: body), truncateBody: truncate)),
                    source: "urn:melon:household")
            }
            for body in [String(repeating: "a", count: 5_000), String(repeating: "€", count: 1_700)] {
                guard case .failure(let error) = try await send(body) else { Issue.record("accepted a \(body.utf8.count)-byte body"); continue }
                #expect(error.code == .invalid && error.fields.map(\.field) == ["data.content.alert.body"], "\(error)")
                #expect(error.message.contains("bytes"), "\(error.message)")
            }
            let fits = String(repeating: "€", count: 1_200)
            _ = try await send(fits).get()
            _ = try await send(String(repeating: "€", count: 1_700), truncate: true).get()
            try await harness.deliver { harness.server.accepted.count == 2 }
            let bodies = harness.server.received.compactMap { received -> String? in
                if case .string(let body)? = received.payload?["aps"]?["alert"] { return body }
                return nil
            }
            #expect(bodies.contains(fits), "a body that fits goes whole")
            #expect(bodies.contains { $0.hasSuffix("…") && $0.count < 1_700 }, "the long one shortened")
            #expect(harness.server.received.allSatisfy { $0.problems.isEmpty })
            guard case .failure(let tooLong) = try await send(String(repeating: "€", count: 6_000), truncate: true) else {
                Issue.record("accepted an 18,000-byte body"); return
            }
            #expect(tooLong.fields.map(\.field) == ["data.content.alert.body"])
        }
    }

    @Test func aDeviceGetsThePushesOfTheAppItsSessionSignedInTo() async throws {
        try await NotificationsHarness.with { harness in
            let token = PushDeliveryTests.token
            let mismatch = try await harness.call(
                Notifications.Devices.Register.self, .init(platform: .ios, app: .melon, token: token, environment: .production), app: "household")
            guard case .failure(let error) = mismatch else { Issue.record("a household session registered a tax helper device"); return }
            #expect(error.code == .invalid && error.fields.map(\.field) == ["data.app"])
            let device = try await harness.call(
                Notifications.Devices.Register.self, .init(platform: .ios, app: nil, token: token, environment: .production), app: "household").get()
            #expect(device.app == .household)
        }
    }
}
