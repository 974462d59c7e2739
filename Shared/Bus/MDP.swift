import ZeroMQ

/// ZeroMQ RFC 7 (Majordomo Protocol 0.1) and RFC 8 (MMI) framing, byte for byte.
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

    /// Worker to broker: ready to serve `service`.
    public static func ready(service: String) -> [Frame] {
        [empty, worker, Command.ready.frame, Array(service.utf8)]
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
