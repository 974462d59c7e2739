import Envelope
import Foundation
import ZeroMQ

/// A live event as it crosses the broker's XPUB/XSUB proxy: a topic frame (the event's `type`, which
/// subscribers filter on by prefix) and a CloudEvents 1.0 structured-mode JSON frame. Live events are
/// best effort: a subscriber that was away misses them, so each kind of event has a way to catch up
/// (revocations: `auth.sessions.revoked.v1`).
public struct LiveEvent<Payload: Codable & Sendable>: Codable, Sendable {
    public var specversion = "1.0"
    public var id: String
    public var source: String
    public var type: String
    public var time: Date
    public var datacontenttype = "application/json"
    public var data: Payload

    public init(source: String, type: String, data: Payload, id: String = RandomID.uuid(), time: Date = Date()) {
        self.id = id
        self.source = source
        self.type = type
        self.time = time
        self.data = data
    }

    /// The two frames on the wire.
    public func frames() throws -> [Frame] {
        [Array(type.utf8), try EnvelopeCodec().encode(self)]
    }

    /// The event in `body` (the second frame), or nil when it is not one of this payload.
    public static func decode(_ body: [UInt8]) -> LiveEvent? {
        try? EnvelopeCodec().decode(LiveEvent.self, from: body)
    }
}
