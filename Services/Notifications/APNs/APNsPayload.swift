import Envelope
import Foundation
import NotificationsContract

/// The JSON body of one APNs request: Apple's `aps` dictionary, typed, and the app's own keys
/// beside it. Built and checked here so that Apple never has to reject one.
public struct APNsPayload: Sendable, Equatable {
    public var aps: APS
    /// Keys outside `aps` (not `aps` itself).
    public var custom: [String: JSONValue]

    public init(aps: APS, custom: [String: JSONValue] = [:]) {
        self.aps = aps
        self.custom = custom
    }

    /// Apple's `aps` dictionary.
    public struct APS: Sendable, Equatable {
        public var alert: Alert?
        public var badge: Int?
        public var sound: Sound?
        public var threadID: String?
        public var category: String?
        public var contentAvailable = false
        public var mutableContent = false
        public var targetContentID: String?
        public var interruptionLevel: InterruptionLevel?
        /// 0 to 1.
        public var relevanceScore: Double?

        public init(alert: Alert? = nil, badge: Int? = nil, sound: Sound? = nil, threadID: String? = nil, category: String? = nil,
                    contentAvailable: Bool = false, mutableContent: Bool = false, targetContentID: String? = nil,
                    interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil) {
            self.alert = alert
            self.badge = badge
            self.sound = sound
            self.threadID = threadID
            self.category = category
            self.contentAvailable = contentAvailable
            self.mutableContent = mutableContent
            self.targetContentID = targetContentID
            self.interruptionLevel = interruptionLevel
            self.relevanceScore = relevanceScore
        }
    }

    /// `aps.alert`: a plain string when it is only a body (as Apple's simplest example), else a dictionary.
    public struct Alert: Sendable, Equatable {
        public var title: String?
        public var subtitle: String?
        public var body: String?
        public var launchImage: String?
        public var titleLocKey: String?
        public var titleLocArgs: [String]?
        public var subtitleLocKey: String?
        public var subtitleLocArgs: [String]?
        public var locKey: String?
        public var locArgs: [String]?

        public init(title: String? = nil, subtitle: String? = nil, body: String? = nil, launchImage: String? = nil, titleLocKey: String? = nil,
                    titleLocArgs: [String]? = nil, subtitleLocKey: String? = nil, subtitleLocArgs: [String]? = nil, locKey: String? = nil,
                    locArgs: [String]? = nil) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.launchImage = launchImage
            self.titleLocKey = titleLocKey
            self.titleLocArgs = titleLocArgs
            self.subtitleLocKey = subtitleLocKey
            self.subtitleLocArgs = subtitleLocArgs
            self.locKey = locKey
            self.locArgs = locArgs
        }
    }

    /// `aps.sound`: a file name (or `default`), or the dictionary of a critical alert's sound.
    public enum Sound: Sendable, Equatable {
        case named(String)
        /// `volume` from 0 to 1.
        case critical(name: String, volume: Double)
    }

    public enum InterruptionLevel: String, Sendable {
        case passive, active, timeSensitive = "time-sensitive", critical
    }

    /// The payload as JSON, members in a stable order.
    public func json() -> JSONValue {
        var aps: [String: JSONValue] = [:]
        if let alert = self.aps.alert { aps["alert"] = alert.json() }
        if let badge = self.aps.badge { aps["badge"] = .number(Double(badge)) }
        switch self.aps.sound {
        case .named(let name)?: aps["sound"] = .string(name)
        case .critical(let name, let volume)?: aps["sound"] = ["critical": 1, "name": .string(name), "volume": .number(volume)]
        case nil: break
        }
        if let thread = self.aps.threadID { aps["thread-id"] = .string(thread) }
        if let category = self.aps.category { aps["category"] = .string(category) }
        if self.aps.contentAvailable { aps["content-available"] = 1 }
        if self.aps.mutableContent { aps["mutable-content"] = 1 }
        if let target = self.aps.targetContentID { aps["target-content-id"] = .string(target) }
        if let level = self.aps.interruptionLevel { aps["interruption-level"] = .string(level.rawValue) }
        if let score = self.aps.relevanceScore { aps["relevance-score"] = .number(score) }
        var members = custom
        members["aps"] = .object(aps)
        return .object(members)
    }

    /// The serialized payload, within `limit` bytes. With `truncatingBody`, a body that does not fit is
    /// shortened at a character boundary and ends with an ellipsis. Throws when the payload is too
    /// large (even with an empty body, when shortening).
    public func serialized(limit: Int = APNsPayload.limit, truncatingBody: Bool = false) throws(APNsPayloadTooLarge) -> [UInt8] {
        let whole = Self.write(json())
        guard whole.count > limit else { return whole }
        guard truncatingBody, let body = aps.alert?.body, !body.isEmpty else { throw APNsPayloadTooLarge(bytes: whole.count, limit: limit) }
        let characters = Array(body)
        // The longest prefix (in characters) whose payload fits, by bisection over the prefix length.
        var low = 0, high = characters.count - 1
        var best: [UInt8]?
        while low <= high {
            let kept = (low + high) / 2
            var shortened = self
            shortened.aps.alert?.body = String(characters[..<kept]) + "…"
            let bytes = Self.write(shortened.json())
            if bytes.count <= limit {
                best = bytes
                low = kept + 1
            } else {
                high = kept - 1
            }
        }
        guard let best else { throw APNsPayloadTooLarge(bytes: whole.count, limit: limit) }
        return best
    }

    /// Apple's limit for every push type but VoIP.
    public static let limit = Notifications.APNsLimit.payloadBytes
    /// The limit of VoIP pushes.
    public static let voipLimit = 5_120

    static func write(_ value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }
}

extension APNsPayload.Alert {
    func json() -> JSONValue {
        let onlyBody = title == nil && subtitle == nil && launchImage == nil && titleLocKey == nil && subtitleLocKey == nil && locKey == nil
        if onlyBody, let body { return .string(body) }
        var members: [String: JSONValue] = [:]
        func put(_ key: String, _ value: String?) { if let value { members[key] = .string(value) } }
        func put(_ key: String, _ values: [String]?) { if let values { members[key] = .array(values.map(JSONValue.string)) } }
        put("title", title)
        put("subtitle", subtitle)
        put("body", body)
        put("launch-image", launchImage)
        put("title-loc-key", titleLocKey)
        put("title-loc-args", titleLocArgs)
        put("subtitle-loc-key", subtitleLocKey)
        put("subtitle-loc-args", subtitleLocArgs)
        put("loc-key", locKey)
        put("loc-args", locArgs)
        return .object(members)
    }
}

/// A payload over Apple's limit that shortening the body cannot bring under it.
public struct APNsPayloadTooLarge: Error, Equatable {
    public let bytes: Int
    public let limit: Int
}
