import Envelope
import Foundation
import NotificationsContract
import PostgresSupport
import ServiceSupport
@testable import NotificationsService
import Testing
import TestSupport

/// The queue, APNs' answers, schedules, quiet hours, preferences and badges, on real PostgreSQL
/// with pushes sent over HTTP/2 and TLS to the local APNs server.
@Suite(.timeLimit(.minutes(3))) struct PushDeliveryTests {
    static let token = "9f3c2a81d4e5b6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5"

    static func register(_ harness: NotificationsHarness, token: String = token, app: Notifications.App = .household,
                         environment: Notifications.Devices.Environment = .production) async throws {
        _ = try await harness.call(
            Notifications.Devices.Register.self, .init(platform: .ios, app: app, token: token, environment: environment, timeZone: "Europe/Dublin"),
            app: app.rawValue
        ).get()
    }

    static func bill(_ text: String = "Electricity: €84.20", interruption: Notifications.Interruption? = nil, dedupe: String? = nil)
        -> Notifications.Push.Send.Request
    {
        .init(
            recipients: [NotificationsHarness.account.uuidString.lowercased()],
            content: .init(app: .household, eventType: "household.bill.created", category: "bills", alert: .init(title: "New bill", body: text),
                           data: ["billId": "b-1"], collapseKey: "bill-b-1", interruption: interruption),
            dedupeKey: dedupe)
    }

    static func send(_ harness: NotificationsHarness, _ request: Notifications.Push.Send.Request) async throws -> Notifications.Push.Send.Response {
        try await harness.call(Notifications.Push.Send.self, request, source: "urn:melon:household").get()
    }

    @Test func aPushReachesTheDeviceOnceWithTheHeadersThePayloadAndASignedToken() async throws {
        try await NotificationsHarness.with { harness in
            try await Self.register(harness)
            let sent = try await Self.send(harness, Self.bill())
            #expect(sent.notifications == 1 && sent.deliveries == 1)
            try await harness.deliver { harness.server.accepted.count == 1 }
            let received = try #require(harness.server.received.first)
            #expect(harness.server.received.count == 1 && received.problems == [])
            #expect(received.token == Self.token)
            #expect(received.headers["apns-topic"] == "ie.melon.household" && received.headers["apns-push-type"] == "alert")
            #expect(received.headers["apns-priority"] == "10" && received.headers["apns-collapse-id"] == "bill-b-1")
            #expect(received.payload?["aps"]?["badge"] == 1 && received.payload?["aps"]?["alert"]?["body"] == "Electricity: €84.20")
            #expect(received.payload?["melon"]?["tabs"] == ["bills": 1] && received.payload?["melon"]?["data"] == ["billId": "b-1"])
            #expect(try await harness.integer("SELECT count(*)::int FROM deliveries WHERE status = 'sent'") == 1)
            // The same dedupe key is the same push.
            let again = try await Self.send(harness, Self.bill(dedupe: "k"))
            let repeated = try await Self.send(harness, Self.bill(dedupe: "k"))
            #expect(repeated.duplicate && repeated.pushID == again.pushID)
        }
    }

    @Test func anExpiredProviderTokenIsRenewedOnceAndThePushGoesThrough() async throws {
        try await NotificationsHarness.with { harness in
            harness.server.answer { _, attempt in attempt == 1 ? .init(status: 403, reason: "ExpiredProviderToken") : .ok }
            try await Self.register(harness)
            _ = try await Self.send(harness, Self.bill())
            try await harness.deliver { harness.server.accepted.count == 1 }
            let jwts = harness.server.received.map(\.jwt)
            #expect(jwts.count == 2 && jwts[0] != jwts[1], "a new JWT for the retry")
            #expect(Set(harness.server.received.compactMap(\.apnsID)).count == 1, "one apns-id across the retry")
        }
    }

    @Test func tooManyRequestsAndUnavailableBackOffAndFinish() async throws {
        try await NotificationsHarness.with { harness in
            harness.server.answer { _, attempt in
                switch attempt {
                case 1: .init(status: 429, reason: "TooManyRequests")
                case 2: .init(status: 503, reason: "ServiceUnavailable")
                default: .ok
                }
            }
            try await Self.register(harness)
            _ = try await Self.send(harness, Self.bill())
            try await harness.deliver { harness.server.accepted.count == 1 }
            // Seen twice in full runs with a 10 s window: the third attempt was due, but two attempts over
            // fresh HTTP/2 connections had taken 8.5 s on the loaded machine. The window (60 s) only bounds a hang.
            let row = try await harness.text("SELECT concat_ws(' ', status, attempts, reason, 'due in', next_attempt_at - clock_timestamp()) FROM deliveries")
            #expect(harness.server.received.count == 3 && Set(harness.server.received.compactMap(\.apnsID)).count == 1, "delivery: \(row)")
            #expect(try await harness.integer("SELECT attempts FROM deliveries") == 3)
            #expect(try await harness.integer("SELECT count(*)::int FROM deliveries WHERE status = 'sent'") == 1)
        }
    }

    @Test func aGoneTokenRemovesTheDeviceUnlessItRegisteredAgainAfterwards() async throws {
        try await NotificationsHarness.with { harness in
            // Apple saw the token invalid after the device registered: pruned.
            let later = Int64(Date().addingTimeInterval(60).timeIntervalSince1970 * 1000)
            harness.server.answer { _, _ in .init(status: 410, reason: "Unregistered", timestamp: later) }
            try await Self.register(harness)
            _ = try await Self.send(harness, Self.bill())
            try await harness.deliver { try await harness.integer("SELECT count(*)::int FROM devices") == 0 }
            #expect(try await harness.integer("SELECT count(*)::int FROM devices") == 0)
            // Registered after Apple's timestamp: kept.
            let earlier = Int64(Date().addingTimeInterval(-3_600).timeIntervalSince1970 * 1000)
            harness.server.answer { _, _ in .init(status: 410, reason: "Unregistered", timestamp: earlier) }
            try await Self.register(harness)
            _ = try await Self.send(harness, Self.bill("second"))
            try await harness.deliver { try await harness.integer("SELECT count(*)::int FROM deliveries WHERE status = 'failed'") == 1 }
            #expect(try await harness.integer("SELECT count(*)::int FROM devices") == 1)
        }
    }

    @Test func aSetupErrorHoldsTheAppsPushesInsteadOfBurningThem() async throws {
        try await NotificationsHarness.with { harness in
            harness.server.answer { _, _ in .init(status: 403, reason: "InvalidProviderToken") }
            try await Self.register(harness)
            try await Self.register(harness, token: String(repeating: "ab", count: 32))
            _ = try await Self.send(harness, Self.bill())
            try await harness.deliver(timeout: .seconds(30)) { try await harness.integer("SELECT count(*)::int FROM app_holds") == 1 }
            try await harness.deliver(timeout: .milliseconds(500))
            #expect(try await harness.integer("SELECT count(*)::int FROM app_holds WHERE app = 'household'") == 1)
            #expect(try await harness.integer("SELECT count(*)::int FROM deliveries WHERE status = 'queued'") == 2, "nothing failed")
            #expect(harness.server.received.count <= 2, "held after the refusal, not retried in a loop")
        }
    }

    @Test func aMutedTypeReachesTheInboxOnlyAndBadgesCountWhatIsUnread() async throws {
        try await NotificationsHarness.with { harness in
            try await Self.register(harness)
            _ = try await harness.call(Notifications.Preferences.Put.self, .init(muted: [.init(app: .household, eventType: "household.bill.created")])).get()
            let muted = try await Self.send(harness, Self.bill())
            #expect(muted.notifications == 1 && muted.deliveries == 0)
            // Concurrent pushes and reads: the counts come from the rows, so they end right.
            try await withThrowingTaskGroup { group in
                for index in 0..<20 {
                    group.addTask {
                        _ = try await Self.send(harness, .init(
                            recipients: [NotificationsHarness.account.uuidString.lowercased()],
                            content: .init(app: .household, eventType: "household.chore.assigned", category: index % 2 == 0 ? "chores" : "groceries",
                                           alert: .init(body: "#\(index)"))))
                    }
                }
                group.addTask { _ = try await harness.call(Notifications.Inbox.MarkRead.self, .init(app: .household, category: "bills")).get() }
                for try await _ in group {}
            }
            let badges = try await harness.call(Notifications.Inbox.Badges.self, .init(app: .household)).get()
            #expect(badges == .init(total: 20, categories: ["chores": 10, "groceries": 10]))
            let read = try await harness.call(Notifications.Inbox.MarkRead.self, .init(app: .household, all: true)).get()
            #expect(read.marked == 20 && read.badges.total == 0)
            let page = try await harness.call(Notifications.Inbox.List.self, .init(app: .household, limit: 15)).get()
            let rest = try await harness.call(Notifications.Inbox.List.self, .init(app: .household, limit: 15, after: page.nextAfter)).get()
            #expect(page.notifications.count == 15 && rest.notifications.count == 6 && rest.nextAfter == nil)
        }
    }

    @Test func quietHoursHoldNonUrgentPushesUntilTheyEnd() async throws {
        // 23:30 in Dublin (summer time) on 1 July 2026, by the service's clock; an urgent push is due
        // at once (the database's now, after November 2026).
        try await NotificationsHarness.with(start: ISO8601DateFormatter().date(from: "2026-07-01T22:30:00Z")!) { harness in
            try await Self.register(harness)
            _ = try await harness.call(Notifications.Preferences.Put.self, .init(muted: [], quietHours: .init(start: "22:00", end: "07:00"))).get()
            _ = try await Self.send(harness, Self.bill())
            _ = try await Self.send(harness, Self.bill("due today", interruption: .timeSensitive))
            let held = try await harness.integer(
                "SELECT count(*)::int FROM deliveries WHERE next_attempt_at = '2026-07-02T06:00:00Z'")
            let urgent = try await harness.integer("SELECT count(*)::int FROM deliveries WHERE next_attempt_at > '2026-11-01T00:00:00Z'")
            #expect(held == 1 && urgent == 1)
        }
    }

    /// An outbox may deliver a sender's changes to one key out of order: with revisions, the newest wins.
    @Test func anOlderRevisionOfAScheduleArrivingLateChangesNothing() async throws {
        try await NotificationsHarness.with(start: ISO8601DateFormatter().date(from: "2026-11-30T12:00:00Z")!) { harness in
            let recipient = NotificationsHarness.account.uuidString.lowercased()
            let content = Notifications.Content(app: .melon, eventType: "tax.deadline.reminder", category: "deadlines", alert: .init(title: "Due soon"))
            func set(_ start: String, revision: Int64) async throws -> Date? {
                try await harness.call(Notifications.Schedule.Set.self, .init(
                    key: "deadline", recipient: recipient, start: start, timeZone: "UTC", content: content, revision: revision),
                    source: "urn:melon:tax-form").get().nextAt
            }
            func cancel(revision: Int64) async throws -> Bool {
                try await harness.call(Notifications.Schedule.Cancel.self, .init(key: "deadline", revision: revision), source: "urn:melon:tax-form").get().cancelled
            }
            let april = ISO8601DateFormatter().date(from: "2027-03-16T10:00:00Z")!
            #expect(try await set("2027-03-16T10:00", revision: 20) == april)
            #expect(try await set("2027-05-16T10:00", revision: 10) == april, "the older June date arrives late and is ignored")
            #expect(try await !cancel(revision: 15), "so is an older cancel")
            #expect(try await harness.integer("SELECT count(*)::int FROM schedules") == 1)
            #expect(try await cancel(revision: 30))
            #expect(try await set("2027-03-16T10:00", revision: 25) == nil, "a set older than the cancel does not bring it back")
            #expect(try await harness.integer("SELECT count(*)::int FROM schedules") == 0)
            #expect(try await set("2027-03-16T10:00", revision: 40) == april)
            // The kit erases what it keeps for the account in every service: its images too.
            let file = MediaRecord.File(mediaType: "image/png", width: 1, height: 1, size: 1)
            let image = MediaRecord(id: UUID(), account: NotificationsHarness.account, full: file, thumbnail: file, createdAt: Date())
            try await harness.database.transaction { connection in
                try await PostgresMediaBlobs(database: harness.database).put(MediaRecord.key(image.id, "full"), [0], on: connection)
                try await harness.database.insertMedia(image, on: connection)
            }
            _ = try await harness.call(Notifications.Account.Erase.self, .init(account: recipient, email: "mei@tcd.ie"), source: "urn:melon:auth").get()
            #expect(try await harness.integer("SELECT count(*)::int FROM schedule_revisions") == 0, "erased with the account")
            #expect(try await harness.integer("SELECT ((SELECT count(*) FROM media_objects) + (SELECT count(*) FROM media_blobs))::int") == 0, "its images too")
        }
    }

    @Test func schedulesFireAtTheirLocalTimesAndMoveWhenSetAgain() async throws {
        let start = ISO8601DateFormatter().date(from: "2026-11-30T12:00:00Z")!
        try await NotificationsHarness.with(start: start) { harness in
            try await Self.register(harness, app: .melon)
            let recipient = NotificationsHarness.account.uuidString.lowercased()
            let content = Notifications.Content(app: .melon, eventType: "tax.deadline.reminder", category: "deadlines", alert: .init(locKey: "DEADLINE"))
            let set = try await harness.call(Notifications.Schedule.Set.self, .init(
                key: "deadline", recipient: recipient, start: "2026-12-01T09:00", repeat: .init(frequency: .daily, count: 2), content: content),
                source: "urn:melon:tax-form").get()
            #expect(set.nextAt == ISO8601DateFormatter().date(from: "2026-12-01T09:00:00Z"), "the device's time zone, Dublin (UTC in winter)")
            let fire = try #require(harness.jobs.first { $0.name.hasSuffix("schedules.fire") })
            await fire.round()
            #expect(try await harness.integer("SELECT count(*)::int FROM notifications") == 0, "not yet")
            harness.advance(to: ISO8601DateFormatter().date(from: "2026-12-01T09:00:00Z")!)
            await fire.round()
            await fire.round()
            #expect(try await harness.integer("SELECT count(*)::int FROM notifications") == 1, "once")
            // Moved: the same key replaces it.
            _ = try await harness.call(Notifications.Schedule.Set.self, .init(
                key: "deadline", recipient: recipient, start: "2026-12-05T09:00", timeZone: "America/New_York", content: content),
                source: "urn:melon:tax-form").get()
            harness.advance(to: ISO8601DateFormatter().date(from: "2026-12-02T09:00:00Z")!)
            await fire.round()
            #expect(try await harness.integer("SELECT count(*)::int FROM notifications") == 1, "the old time is gone")
            harness.advance(to: ISO8601DateFormatter().date(from: "2026-12-05T14:00:00Z")!)
            await fire.round()
            #expect(try await harness.integer("SELECT count(*)::int FROM notifications") == 2)
            #expect(try await harness.integer("SELECT count(*)::int FROM schedules") == 0, "a one-off is gone once fired")
            let cancelled = try await harness.call(Notifications.Schedule.Cancel.self, .init(key: "deadline"), source: "urn:melon:tax-form").get()
            #expect(!cancelled.cancelled)
        }
    }

    @Test func anAppWithoutABundleIDStopsTheServiceFromStarting() async throws {
        let topics = APNsTestServer.topics.split(separator: ",").filter { !$0.hasPrefix("nebula=") }.joined(separator: ",")
        await #expect(throws: ProcessSettings.InvalidValue.self) {
            try await NotificationsHarness.with(environment: ["APNS_TOPICS": topics]) { _ in Issue.record("started without nebula's bundle id") }
        }
    }

    @Test func twoAccountsRacingForOneTokenNeverSeeEachOthersDevice() async throws {
        try await NotificationsHarness.with { harness in
            let accounts = [UUID(), UUID()]
            let replies = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for round in 0..<20 {
                    group.addTask {
                        let result = try await harness.call(
                            Notifications.Devices.Register.self, .init(platform: .ios, app: .household, token: Self.token, environment: .production),
                            account: accounts[round % 2])
                        return (round % 2, try? result.get().id)
                    }
                }
                var replies: [Int: Set<String>] = [0: [], 1: []]
                for try await (owner, id) in group { if let id { replies[owner]!.insert(id) } }
                return replies
            }
            #expect(replies[0]!.isDisjoint(with: replies[1]!), "a device id answered to both accounts")
            #expect(try await harness.integer("SELECT count(*)::int FROM devices") == 1)
        }
    }

    @Test func readNotificationsLeaveAfterTheRetentionAndUnreadOnesStayLonger() async throws {
        try await NotificationsHarness.with { harness in
            for _ in 0..<3 { _ = try await Self.send(harness, Self.bill()) }
            try await harness.database.transaction { connection in
                try await connection.query(
                    """
                    UPDATE notifications SET created_at = now() - interval '100 days',
                        read_at = CASE WHEN seq = (SELECT min(seq) FROM notifications) THEN NULL ELSE now() END
                    """,
                    logger: harness.database.logger)
            }
            let prune = try #require(harness.jobs.first { $0.name.hasSuffix("inbox.prune") })
            #expect(await prune.round() == 2, "the two read ones, older than 90 days")
            #expect(try await harness.integer("SELECT count(*)::int FROM notifications WHERE read_at IS NULL") == 1)
        }
    }
}
