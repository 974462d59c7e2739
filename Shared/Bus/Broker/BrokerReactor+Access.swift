import Envelope
import Foundation
import Logging
import ZeroMQ

/// CurveZMQ admission (RFC 27 ZAP) and each member's rights.
///
/// libzmq asks the ZAP handler, a REP socket at `inproc://zeromq.zap.01` in the broker's context,
/// about every CURVE handshake: a listed key is admitted with its member's name as the connection's
/// `User-Id`, which every message from it then carries; any other key, and a member without the
/// right to publish on the publishers' socket, is refused. Each refusal is counted
/// (`melon_broker_refusals_total{member,reason}`) and logged with the member's name, or the unknown
/// key (public, so safe to log).
extension BrokerReactor {
    static let zapEndpoint = "inproc://zeromq.zap.01"

    /// The ZAP domains of the broker's sockets.
    enum Domain {
        static let bus = "bus", events = "events", publish = "events.publish"
    }

    /// Answers the ZAP requests waiting.
    func answerZAP(_ handler: ZMQSocket) {
        while let request = try? handler.receive() {
            // version, request id, domain, address, routing id, mechanism, client key. A REP socket
            // must answer every request, or it stops reading and nobody is admitted again.
            let version = request.first ?? Array("1.0".utf8), requestID = request.count > 1 ? request[1] : []
            guard request.count >= 7, version == Array("1.0".utf8) else {
                logger.error("a malformed ZAP request", metadata: ["frames": "\(request.count)"])
                _ = try? handler.send([version, requestID, Array("500".utf8), Array("malformed ZAP request".utf8), [], []])
                continue
            }
            let domain = String(decoding: request[2], as: UTF8.self), mechanism = String(decoding: request[5], as: UTF8.self)
            var status = "400", text = "not a member of this bus", userID = ""
            if mechanism == "CURVE", let key = CurveKeyPair.z85(request[6]) {
                if let member = access?.members[key] {
                    if domain == Domain.publish && !member.rights.publishes {
                        refuse(member.name, reason: "publish", "a member without the right to publish live events tried to")
                        text = "not allowed to publish live events"
                    } else {
                        (status, text, userID) = ("200", "OK", member.name)
                    }
                } else {
                    refuse("unknown", reason: "unknown_key", "a connection with an unlisted key was refused", key: key)
                }
            } else {
                refuse("unknown", reason: "mechanism", "a connection with the \(mechanism) mechanism was refused")
            }
            _ = try? handler.send([request[0], request[1], Array(status.utf8), Array(text.utf8), Array(userID.utf8), []])
        }
    }

    /// Whether `member` may send READY for `service`; counts and logs a refusal.
    func mayServe(_ member: BusMember?, _ service: String) -> Bool {
        guard access != nil else { return true }
        guard let member, member.rights.serves.contains(service) else {
            refuse(member?.name ?? "unknown", reason: "serve", "a READY for \(service) beyond the member's rights was refused")
            return false
        }
        return true
    }

    /// Why `member` may not make this request, or nil when it may: it must be allowed to call `type`,
    /// which must belong to `service`, and only a member acting for users may carry a caller (a user,
    /// a client's address).
    func refusal(of member: BusMember?, service: String, type: String?, speaksForUser: Bool) -> OperationError? {
        guard access != nil else { return nil }
        let name = member?.name ?? "unknown"
        guard let member, let type, type.hasPrefix(service + "."), member.rights.calls(type) else {
            refuse(name, reason: "call", "a request for \(type ?? "an unnamed operation") beyond the member's rights was refused")
            return OperationError(.forbidden, "\(name) may not call \(type ?? "an unnamed operation") on the bus")
        }
        guard !speaksForUser || member.rights.actsForUsers else {
            refuse(name, reason: "acts_for_user", "a request speaking for a user or client from a member that may not was refused")
            return OperationError(.forbidden, "\(name) may not send requests on behalf of a user or client")
        }
        return nil
    }

    private func refuse(_ member: String, reason: String, _ message: String, key: String? = nil) {
        BrokerMetrics.refusals(member: member, reason: reason).increment()
        var metadata: Logger.Metadata = ["member": "\(member)", "reason": "\(reason)"]
        if let key { metadata["key"] = "\(key)" }
        logger.warning("\(message)", metadata: metadata)
    }
}
