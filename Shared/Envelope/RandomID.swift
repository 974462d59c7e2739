#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random identifiers for envelopes and traces from the C library's arc4random (ChaCha20, reseeded
/// from the kernel): one call per id instead of a getrandom system call per byte.
public enum RandomID {
    private static let digits = Array("0123456789abcdef".utf8)

    /// A lowercase RFC 9562 version-4 UUID, such as `8d5e0c1e-3c1a-4a57-9a51-5b0f3f3f3c01`.
    public static func uuid() -> String {
        var bytes = (UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &bytes) { arc4random_buf($0.baseAddress!, 16) }
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = (raw[6] & 0x0F) | 0x40  // version 4
            raw[8] = (raw[8] & 0x3F) | 0x80  // variant 10
            return String(unsafeUninitializedCapacity: 36) { out in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits[Int(raw[index] >> 4)]
                    out[position + 1] = digits[Int(raw[index] & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    /// `count` random bytes as lowercase hex, never all zeros (W3C trace and span ids).
    public static func hex(bytes count: Int) -> String {
        precondition(count > 0 && count <= 32)
        var raw = [UInt8](repeating: 0, count: count)
        repeat {
            raw.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, count) }
        } while raw.allSatisfy { $0 == 0 }
        return String(unsafeUninitializedCapacity: count * 2) { out in
            for (index, byte) in raw.enumerated() {
                out[index * 2] = digits[Int(byte >> 4)]
                out[index * 2 + 1] = digits[Int(byte & 0x0F)]
            }
            return count * 2
        }
    }
}
