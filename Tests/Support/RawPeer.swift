import Foundation
import ZeroMQ

/// A bare ZeroMQ socket for tests that speak a protocol frame by frame (a fake broker, worker or
/// client), with a timeout on every receive so a missing message fails the test instead of hanging it.
public final class RawPeer {
    public let socket: ZMQSocket

    /// A DEALER with a fixed routing id, connected to `endpoint`; with `curve`, as a CurveZMQ client
    /// of the server holding `serverKey`.
    public init(connectingTo endpoint: String, identity: String, context: ZMQContext, curve: (CurveKeyPair, serverKey: String)? = nil) throws {
        socket = try ZMQSocket(context, type: .dealer)
        try socket.set(.routingID, Array(identity.utf8))
        if let (keyPair, serverKey) = curve { try socket.useCurve(keyPair, serverKey: serverKey) }
        try socket.connect(endpoint)
    }

    /// A ROUTER bound to a free loopback port (see `endpoint`).
    public init(routerOn context: ZMQContext) throws {
        socket = try ZMQSocket(context, type: .router)
        try socket.bind("tcp://127.0.0.1:*")
    }

    public var endpoint: String { socket.lastEndpoint }

    /// How long a receive waits by default: a bound on a hang, not a wait for an event. A peer's first
    /// frames can take seconds while the whole suite starts on two cores (every golden-frame test
    /// once missed a READY within 5 s then); a check that nothing comes passes its own short timeout.
    public static let patience = Duration.seconds(30)

    public func send(_ frames: [Frame]) throws {
        try socket.send(frames, dontWait: false)
    }

    public func send(_ strings: [String]) throws {
        try send(strings.map { Array($0.utf8) })
    }

    /// The next message, or nil after `timeout`. Waits with short sleeps rather than a blocking poll,
    /// so a test never holds one of the few cooperative threads the parts under test also need.
    public func receive(timeout: Duration = patience) async throws -> [Frame]? {
        let end = ContinuousClock.now + timeout
        while true {
            if let frames = try socket.receive() { return frames }
            guard ContinuousClock.now < end else { return nil }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The next message that `matches`, skipping others (heartbeats, say), or nil after `timeout`.
    public func receive(timeout: Duration = patience, where matches: ([Frame]) -> Bool) async throws -> [Frame]? {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            guard let frames = try await receive(timeout: ContinuousClock.now.duration(to: end)) else { return nil }
            if matches(frames) { return frames }
        }
        return nil
    }
}

extension Array where Element == Frame {
    /// Frames as text, for readable assertion failures.
    public var text: [String] { map { String(decoding: $0, as: UTF8.self) } }
}
