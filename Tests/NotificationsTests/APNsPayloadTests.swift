import Envelope
import Foundation
import NotificationsContract
@testable import NotificationsService
import Testing

/// The payload builder against the examples of Apple's documentation ("Generating a remote
/// notification", "Pushing background updates to your App"), compared as JSON values.
@Suite(.timeLimit(.minutes(1))) struct APNsPayloadTests {
    static func json(_ payload: APNsPayload) throws -> JSONValue { try JSONValue.parse(payload.serialized()) }

    @Test func titleSubtitleBodyCategoryAndACustomKey() throws {
        let payload = APNsPayload(
            aps: .init(alert: .init(title: "Game Request", subtitle: "Five Card Draw", body: "Bob wants to play poker"), category: "GAME_INVITATION"),
            custom: ["gameID": "12345678"])
        #expect(try Self.json(payload) == JSONValue.parse(Array("""
            {"aps": {"alert": {"title": "Game Request", "subtitle": "Five Card Draw", "body": "Bob wants to play poker"},
                     "category": "GAME_INVITATION"}, "gameID": "12345678"}
            """.utf8)))
    }

    @Test func localisationKeysAndArguments() throws {
        let payload = APNsPayload(aps: .init(alert: .init(
            titleLocKey: "GAME_PLAY_REQUEST_TITLE", locKey: "GAME_PLAY_REQUEST_FORMAT", locArgs: ["Shelly", "Rick"])))
        #expect(try Self.json(payload) == JSONValue.parse(Array("""
            {"aps": {"alert": {"title-loc-key": "GAME_PLAY_REQUEST_TITLE", "loc-key": "GAME_PLAY_REQUEST_FORMAT", "loc-args": ["Shelly", "Rick"]}}}
            """.utf8)))
    }

    @Test func badgeSoundAndABodyOnlyAlertAsAString() throws {
        let payload = APNsPayload(aps: .init(alert: .init(body: "Hello"), badge: 9, sound: .named("bingbong.aiff")), custom: ["messageID": "ABCDEFGHIJ"])
        #expect(try Self.json(payload) == JSONValue.parse(Array("""
            {"aps": {"alert": "Hello", "badge": 9, "sound": "bingbong.aiff"}, "messageID": "ABCDEFGHIJ"}
            """.utf8)))
        #expect(String(decoding: try payload.serialized(), as: UTF8.self).contains(#""badge":9"#))
    }

    @Test func backgroundUpdate() throws {
        let payload = APNsPayload(aps: .init(contentAvailable: true), custom: ["acme1": "bar", "acme2": 42])
        #expect(try Self.json(payload) == JSONValue.parse(Array(#"{"aps": {"content-available": 1}, "acme1": "bar", "acme2": 42}"#.utf8)))
        let request = try APNsRequest(deviceToken: "a1b2", bundleID: "ie.melon.app", payload: payload, expiration: nil, collapseID: nil, apnsID: UUID())
        #expect(request.pushType == .background && request.priority == .considerate)
    }

    @Test func criticalSoundInterruptionLevelRelevanceThreadAndTarget() throws {
        let payload = APNsPayload(aps: .init(
            alert: .init(title: "t"), sound: .critical(name: "gamesound.aiff", volume: 1.0), threadID: "bills", mutableContent: true,
            targetContentID: "window-1", interruptionLevel: .timeSensitive, relevanceScore: 0.75))
        #expect(try Self.json(payload) == JSONValue.parse(Array("""
            {"aps": {"alert": {"title": "t"}, "sound": {"critical": 1, "name": "gamesound.aiff", "volume": 1.0}, "thread-id": "bills",
                     "mutable-content": 1, "target-content-id": "window-1", "interruption-level": "time-sensitive", "relevance-score": 0.75}}
            """.utf8)))
    }

    @Test func aLongBodyIsShortenedAtACharacterBoundaryWithAnEllipsisOnlyWhenAskedTo() throws {
        let body = String(repeating: "Wäsche 🧺👩‍👩‍👧 ", count: 600)
        let payload = APNsPayload(aps: .init(alert: .init(title: "Chores", body: body)), custom: ["melon": ["id": "x"]])
        #expect(throws: APNsPayloadTooLarge.self) { try payload.serialized() }
        let bytes = try payload.serialized(truncatingBody: true)
        #expect(bytes.count <= 4_096 && bytes.count > 4_000)
        guard case .string(let shortened)? = try JSONValue.parse(bytes)["aps"]?["alert"]?["body"] else { Issue.record("no body"); return }
        #expect(shortened.hasSuffix("…"))
        let kept = Array(shortened.dropLast())
        #expect(kept == Array(Array(body).prefix(kept.count)), "a prefix of whole characters")
        #expect(try JSONValue.parse(bytes)["melon"] == ["id": "x"])
    }

    @Test func aPayloadTooLargeWithoutItsBodyIsRefused() {
        let payload = APNsPayload(aps: .init(alert: .init(body: "hi")), custom: ["blob": .string(String(repeating: "x", count: 5_000))])
        #expect(throws: APNsPayloadTooLarge.self) { try payload.serialized(truncatingBody: true) }
    }

    @Test func headersFollowThePushTypeAndInterruption() throws {
        let id = UUID()
        let alert = try APNsRequest(
            deviceToken: "ab", bundleID: "ie.melon.household", payload: .init(aps: .init(alert: .init(body: "x"))),
            expiration: Date(timeIntervalSince1970: 1_800_000_000), collapseID: "bill-7", apnsID: id)
        #expect(alert.headers.map(\.0) == ["apns-push-type", "apns-id", "apns-expiration", "apns-priority", "apns-topic", "apns-collapse-id"])
        #expect(Dictionary(uniqueKeysWithValues: alert.headers) == [
            "apns-push-type": "alert", "apns-id": id.uuidString.lowercased(), "apns-expiration": "1800000000", "apns-priority": "10",
            "apns-topic": "ie.melon.household", "apns-collapse-id": "bill-7",
        ])
        let passive = try APNsRequest(
            deviceToken: "ab", bundleID: "b", payload: .init(aps: .init(alert: .init(body: "x"), interruptionLevel: .passive)), expiration: nil,
            collapseID: nil, apnsID: id)
        #expect(passive.priority == .considerate && Dictionary(uniqueKeysWithValues: passive.headers)["apns-expiration"] == "0")
        let voip = try APNsRequest(
            deviceToken: "ab", bundleID: "ie.melon", payload: .init(aps: .init(alert: .init(body: "x"))), pushType: .voip, expiration: nil,
            collapseID: nil, apnsID: id)
        #expect(voip.topic == "ie.melon.voip")
        #expect(APNsRequest.PushType.liveactivity.topicSuffix == ".push-type.liveactivity")
        #expect(throws: APNsRequestError.self) {
            try APNsRequest(
                deviceToken: "ab", bundleID: "b", payload: .init(aps: .init(alert: .init(body: "x"))), expiration: nil,
                collapseID: String(repeating: "é", count: 33), apnsID: id)
        }
    }

    @Test func repliesMeanWhatApplesTableSays() {
        #expect(APNsVerdict.of(status: 200, reason: nil, timestamp: nil) == .accepted)
        #expect(APNsVerdict.of(status: 410, reason: "Unregistered", timestamp: 1_700_000_000_000)
            == .tokenGone(reason: "Unregistered", since: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(APNsVerdict.of(status: 400, reason: "BadDeviceToken", timestamp: nil) == .tokenRejected(reason: "BadDeviceToken"))
        #expect(APNsVerdict.of(status: 403, reason: "ExpiredProviderToken", timestamp: nil) == .renewProviderToken)
        #expect(APNsVerdict.of(status: 403, reason: "InvalidProviderToken", timestamp: nil) == .setupError(reason: "InvalidProviderToken"))
        #expect(APNsVerdict.of(status: 400, reason: "TopicDisallowed", timestamp: nil) == .setupError(reason: "TopicDisallowed"))
        #expect(APNsVerdict.of(status: 429, reason: "TooManyProviderTokenUpdates", timestamp: nil) == .tooManyTokenUpdates)
        #expect(APNsVerdict.of(status: 429, reason: "TooManyRequests", timestamp: nil) == .retry(reason: "TooManyRequests"))
        #expect(APNsVerdict.of(status: 503, reason: "ServiceUnavailable", timestamp: nil) == .retry(reason: "ServiceUnavailable"))
        #expect(APNsVerdict.of(status: 413, reason: "PayloadTooLarge", timestamp: nil) == .failed(reason: "PayloadTooLarge"))
    }
}

/// The event types the apps' documents name pass the contract's own rules.
@Suite(.timeLimit(.minutes(1))) struct EventTypeTests {
    @Test func everyKnownEventTypeIsAValidTypeAndCategory() throws {
        for type in Notifications.EventType.all {
            let content = Notifications.Content(app: type.app, eventType: type.name, category: type.category, alert: .init(body: "x"))
            #expect(throws: Never.self) {
                try Notifications.Push.Send.check(.init(recipients: [UUID().uuidString.lowercased()], content: content))
            }
        }
    }
}
