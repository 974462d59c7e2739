import Envelope
import Foundation

/// One push to one device as APNs receives it: the path's device token, the headers and the payload.
public struct APNsRequest: Sendable, Equatable {
    /// `apns-push-type`, sent with every push (watchOS 6 and later require it; Apple asks for it always).
    public enum PushType: String, Sendable, CaseIterable {
        case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls

        /// What Apple asks to append to the bundle id in `apns-topic` for this type.
        public var topicSuffix: String {
            switch self {
            case .voip: ".voip"
            case .complication: ".complication"
            case .fileprovider: ".pushkit.fileprovider"
            case .location: ".location-query"
            case .liveactivity: ".push-type.liveactivity"
            case .pushtotalk: ".voip-ptt"
            case .widgets: ".push-type.widgets"
            case .controls: ".push-type.controls"
            case .alert, .background, .mdm: ""
            }
        }
    }

    /// `apns-priority`.
    public enum Priority: Int, Sendable {
        /// Power considerations of the device decide; required for background pushes.
        case considerate = 5
        /// At once: alerts, sounds and badges that need attention now.
        case immediate = 10
    }

    /// Hex, as registered.
    public var deviceToken: String
    public var pushType: PushType
    /// The app's bundle id; `topic` adds the push type's suffix.
    public var bundleID: String
    public var priority: Priority
    /// When APNs stops trying to store and deliver it; nil: `0`, deliver once or not at all.
    public var expiration: Date?
    /// At most 64 bytes of UTF-8.
    public var collapseID: String?
    /// Our id for the push to this device, the same in every retry.
    public var apnsID: UUID
    public var payload: [UInt8]

    /// The request for `payload` to `deviceToken`. The priority is forced to 5 for background pushes;
    /// a passive alert asks for 5 too, since it needs no immediate action. With `truncatingBody`, a
    /// body that makes the payload too large is shortened; else such a payload throws.
    public init(deviceToken: String, bundleID: String, payload: APNsPayload, pushType: PushType? = nil, expiration: Date?, collapseID: String?,
                apnsID: UUID, truncatingBody: Bool = false) throws(APNsRequestError) {
        let type = pushType ?? (payload.aps.alert == nil && payload.aps.badge == nil && payload.aps.sound == nil ? .background : .alert)
        if type == .background, payload.aps.contentAvailable == false {
            throw .invalid("a background push needs content-available")
        }
        if let collapseID, collapseID.utf8.count > 64 || collapseID.isEmpty {
            throw .invalid("apns-collapse-id must be 1 to 64 bytes of UTF-8")
        }
        if let score = payload.aps.relevanceScore, !(0...1).contains(score) {
            throw .invalid("relevance-score must be from 0 to 1")
        }
        if case .critical(_, let volume)? = payload.aps.sound, !(0...1).contains(volume) {
            throw .invalid("a critical sound's volume must be from 0 to 1")
        }
        self.deviceToken = deviceToken
        self.pushType = type
        self.bundleID = bundleID
        self.priority = type == .background || payload.aps.interruptionLevel == .passive ? .considerate : .immediate
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        do {
            self.payload = try payload.serialized(limit: type == .voip ? APNsPayload.voipLimit : APNsPayload.limit, truncatingBody: truncatingBody)
        } catch {
            let over = error.bytes - error.limit
            throw .invalid(truncatingBody || payload.aps.alert?.body == nil
                ? "the push's payload would be \(error.bytes.grouped) bytes, over APNs' limit of \(error.limit.grouped), even with the body shortened"
                : "the push's payload would be \(error.bytes.grouped) bytes, over APNs' limit of \(error.limit.grouped): shorten the body by "
                    + "\(over.grouped) bytes of UTF-8, or set truncateBody to have it shortened on the device")
        }
    }

    /// `apns-topic`.
    public var topic: String { bundleID + pushType.topicSuffix }

    /// `/3/device/<token>`.
    public var path: String { "/3/device/\(deviceToken)" }

    /// The request's headers, in the order Apple's documentation lists them (without `authorization`).
    public var headers: [(String, String)] {
        var headers = [
            ("apns-push-type", pushType.rawValue),
            ("apns-id", apnsID.uuidString.lowercased()),
            ("apns-expiration", expiration.map { String(Int64($0.timeIntervalSince1970.rounded(.down))) } ?? "0"),
            ("apns-priority", String(priority.rawValue)),
            ("apns-topic", topic),
        ]
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return headers
    }
}

public enum APNsRequestError: Error, Equatable {
    case invalid(String)

    public var message: String {
        switch self { case .invalid(let message): message }
    }
}
