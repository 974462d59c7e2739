import ZeroMQ

/// ZeroMQ RFC 7 (Majordomo Protocol 0.1) and RFC 8 (MMI) framing, byte for byte.
///
/// One extension: a worker's READY may carry one frame more, after the service name, the number of
/// requests the connection takes at once (`capacity`, ASCII digits, 1 to 1024). A broker that knows
/// it keeps that many REQUESTs outstanding on the connection, each with a client address frame of its
/// own (the client's address and a tag), which the worker hands back in the REPLY as RFC 7 has it. A
/// broker that does not know it reads the service name only and sends one request at a time; a
/// worker without it is a worker of capacity 1.
///
/// Frames are shown as the peer's socket sees them after the ROUTER address (if any):
/// client request `["", "MDPC01", service, body...]`, worker command `["", "MDPW01", command, ...]`.
public enum MDP {
    /// Protocol header of client messages.
    public static let client: Frame = Array("MDPC01".utf8)
    /// Protocol header of worker messages.
    public static let worker: Frame = Array("MDPW01".utf8)
    /// The empty delimiter frame.
    public static let empty: Frame = []

    /// Worker commands (one byte).
    public enum Command: UInt8, Sendable {
        case ready = 0x01
        case request = 0x02
        case reply = 0x03
        case heartbeat = 0x04
        case disconnect = 0x05

        public var frame: Frame { [rawValue] }
    }

    /// The RFC 8 service-discovery service.
    public static let mmiService = "mmi.service"

    // MARK: Client side

    /// Client to broker: a request for `service`.
    public static func clientRequest(service: String, body: [Frame]) -> [Frame] {
        [empty, client, Array(service.utf8)] + body
    }

    /// Broker to client: a reply from `service` (after the client's address).
    public static func clientReply(service: Frame, body: [Frame]) -> [Frame] {
        [empty, client, service] + body
    }

    // MARK: Worker side

    /// Worker to broker: ready to serve `service`, up to `capacity` requests at once.
    public static func ready(service: String, capacity: Int = 1) -> [Frame] {
        let ready = [empty, worker, Command.ready.frame, Array(service.utf8)]
        return capacity == 1 ? ready : ready + [Array(String(capacity).utf8)]
    }

    /// The most requests a worker connection may take at once.
    public static let maxCapacity = 1024

    /// The capacity frame of a READY: 1 to `maxCapacity` in ASCII digits, no leading zero; nil otherwise.
    public static func capacity(_ frame: Frame) -> Int? {
        guard (1...4).contains(frame.count), frame.first != UInt8(ascii: "0"), frame.allSatisfy({ (0x30...0x39).contains($0) }),
            let value = Int(String(decoding: frame, as: UTF8.self)), (1...maxCapacity).contains(value)
        else { return nil }
        return value
    }

    /// Broker to worker: a request from the client at `clientAddress`.
    public static func request(clientAddress: Frame, body: [Frame]) -> [Frame] {
        [empty, worker, Command.request.frame, clientAddress, empty] + body
    }

    /// Worker to broker: the reply for the client at `clientAddress`.
    public static func reply(clientAddress: Frame, body: [Frame]) -> [Frame] {
        [empty, worker, Command.reply.frame, clientAddress, empty] + body
    }

    /// Either direction: still alive.
    public static let heartbeat: [Frame] = [empty, worker, Command.heartbeat.frame]

    /// Either direction: this worker connection is over.
    public static let disconnect: [Frame] = [empty, worker, Command.disconnect.frame]

    /// A worker-protocol message taken apart: its command and the frames after the command frame.
    public struct WorkerMessage: Sendable, Equatable {
        public let command: Command
        public let arguments: [Frame]
    }

    /// Parses `["", "MDPW01", command, ...]`; nil when the frames are not a worker message.
    public static func parseWorker(_ frames: ArraySlice<Frame>) -> WorkerMessage? {
        guard frames.count >= 3 else { return nil }
        let start = frames.startIndex
        guard frames[start].isEmpty, frames[start + 1] == worker, frames[start + 2].count == 1,
            let command = Command(rawValue: frames[start + 2][0])
        else { return nil }
        return WorkerMessage(command: command, arguments: Array(frames[(start + 3)...]))
    }
}
