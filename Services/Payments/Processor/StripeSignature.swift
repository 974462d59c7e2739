import Crypto
import Foundation

/// Stripe's webhook signatures (docs.stripe.com/webhooks, the `Stripe-Signature` header):
/// `t=<unix time>,v1=<hex>[,v1=<hex>…]`, each `v1` an HMAC-SHA256 with the endpoint's secret over
/// `<t>.<the body's exact bytes>`. Any `v1` may match (several during a secret's rotation), compared
/// in constant time; `t` must be within `tolerance` of now, so a captured event cannot be replayed later.
enum StripeSignature {
    static let tolerance: TimeInterval = 300

    static func verify(_ payload: Data, header: String, secret: String, now: Date, tolerance: TimeInterval = Self.tolerance) -> Bool {
        var time: Int64?, signatures: [Data] = []
        for item in header.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { time = Int64(pair[1]) }
            if pair[0] == "v1", let bytes = hex(pair[1]) { signatures.append(bytes) }
        }
        guard let time, abs(now.timeIntervalSince1970 - TimeInterval(time)) <= tolerance, !signatures.isEmpty else { return false }
        let key = SymmetricKey(data: Data(secret.utf8))
        let signed = Data("\(time).".utf8) + payload
        return signatures.contains { HMAC<SHA256>.isValidAuthenticationCode($0, authenticating: signed, using: key) }
    }

    /// The header Stripe would send for `payload` at `time` (for tests and tools).
    static func header(_ payload: Data, secret: String, time: Date) -> String {
        let t = Int64(time.timeIntervalSince1970)
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(t).".utf8) + payload, using: SymmetricKey(data: Data(secret.utf8)))
        return "t=\(t),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    private static func hex(_ text: String) -> Data? {
        guard text.count == 64 else { return nil }
        var bytes = Data(), index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
