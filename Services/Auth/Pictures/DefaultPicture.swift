import AuthContract
import Crypto
import Foundation

/// The picture of an account that has not set one: a 5×5 mirrored pattern in a colour, both drawn
/// from a hash of the account id, so every account has its own and it never changes. It is made on
/// request (a few kilobytes, microseconds), never stored: a two-colour PNG whose pixel data is a
/// stored (uncompressed) deflate block, which every PNG decoder reads.
enum DefaultPicture {
    static let side = 240
    static let cells = 5
    static let margin = 20
    static var cell: Int { (side - 2 * margin) / cells }

    /// The PNG file of `account`'s default picture.
    static func png(for account: UUID) -> Data {
        let digest = Self.digest(of: account)
        let pattern = Self.pattern(digest)
        let rowBytes = (side + 7) / 8
        var pixels = [UInt8]()
        pixels.reserveCapacity(side * (rowBytes + 1))
        for y in 0..<side {
            pixels.append(0)  // filter: none
            var row = [UInt8](repeating: 0, count: rowBytes)
            for x in 0..<side where isForeground(x: x, y: y, pattern) { row[x / 8] |= 0x80 >> UInt8(x % 8) }
            pixels += row
        }
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // Width, height, bit depth 1, colour type 3 (palette), deflate, adaptive filters, no interlace.
        file += chunk("IHDR", be32(side) + be32(side) + [1, 3, 0, 0, 0])
        file += chunk("PLTE", [0xF2, 0xF2, 0xF2] + colour(digest))
        file += chunk("IDAT", zlibStored(pixels))
        file += chunk("IEND", [])
        return Data(file)
    }

    /// What the pattern and colour come from.
    static func digest(of account: UUID) -> [UInt8] {
        Array(SHA256.hash(data: Data(account.uuidString.lowercased().utf8)))
    }

    /// The file's size, the same for every account (the same pixel count in stored blocks), so
    /// listing a default picture's facts never draws it.
    static let size = png(for: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!).count

    /// The facts of `account`'s default picture, dated from when the account was made.
    static func info(since created: Date) -> Auth.PictureInfo {
        Auth.PictureInfo(mediaType: "image/png", width: side, height: side, size: size, updatedAt: created, isDefault: true)
    }

    /// Which cells are filled: 15 bits for the left three columns, mirrored onto the right two (never
    /// none: an empty pattern is turned around).
    static func pattern(_ digest: [UInt8]) -> [[Bool]] {
        var bits = (UInt32(digest[2]) | UInt32(digest[3]) << 8) & 0x7FFF
        if bits == 0 { bits = 0x7FFF }
        return (0..<cells).map { row in
            (0..<cells).map { column in
                let source = column < 3 ? column : cells - 1 - column
                return bits >> UInt32(row * 3 + source) & 1 == 1
            }
        }
    }

    private static func isForeground(x: Int, y: Int, _ pattern: [[Bool]]) -> Bool {
        let inside = margin..<(side - margin)
        guard inside.contains(x), inside.contains(y) else { return false }
        return pattern[(y - margin) / cell][(x - margin) / cell]
    }

    /// A saturated, mid-light colour whose hue comes from the digest (HSL with S 0.55, L 0.5).
    static func colour(_ digest: [UInt8]) -> [UInt8] {
        let hue = Double(Int(digest[0]) << 8 | Int(digest[1])) / 65536 * 6
        let chroma = 0.55, lightness = 0.5
        let x = chroma * (1 - abs(hue.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) =
            switch Int(hue) {
            case 0: (chroma, x, 0)
            case 1: (x, chroma, 0)
            case 2: (0, chroma, x)
            case 3: (0, x, chroma)
            case 4: (x, 0, chroma)
            default: (chroma, 0, x)
            }
        let m = lightness - chroma / 2
        return [r, g, b].map { UInt8(min(255, max(0, (($0 + m) * 255).rounded()))) }
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    /// A zlib stream of stored deflate blocks (RFC 1950, RFC 1951 §3.2.4).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(start + 65_535, data.count)
            let length = end - start
            out.append(end == data.count ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[start..<end]
            start = end
        } while start < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + be32(Int(b << 16 | a))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }

    private static func be32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
