/// What the first bytes of an image file say: its format and pixel size. Only PNG, JPEG and WebP
/// are accepted as profile pictures; anything else (or a file that does not parse) is nil.
struct ImageFacts: Equatable {
    let mediaType: String
    let width: Int
    let height: Int

    static let mediaTypes = ["image/png", "image/jpeg", "image/webp"]

    static func inspect(_ bytes: [UInt8]) -> ImageFacts? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(bytes) }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return jpeg(bytes) }
        if bytes.count >= 30, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return webp(bytes) }
        return nil
    }

    /// The IHDR chunk comes first: width and height as big-endian 32-bit numbers.
    private static func png(_ b: [UInt8]) -> ImageFacts? {
        guard b.count >= 24, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        return make("image/png", width: be32(b, 16), height: be32(b, 20))
    }

    /// Walks the segments to the first start-of-frame marker (SOF0 to SOF15 but DHT, JPG and DAC).
    private static func jpeg(_ b: [UInt8]) -> ImageFacts? {
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return make("image/jpeg", width: Int(b[i + 7]) << 8 | Int(b[i + 8]), height: Int(b[i + 5]) << 8 | Int(b[i + 6]))
            }
            guard length >= 2 else { return nil }
            i += 2 + length
        }
        return nil
    }

    /// VP8 (lossy), VP8L (lossless) or VP8X (extended) as the first chunk.
    private static func webp(_ b: [UInt8]) -> ImageFacts? {
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return make("image/webp", width: le16(b, 26) & 0x3FFF, height: le16(b, 28) & 0x3FFF)
        case "VP8L":
            guard b[20] == 0x2F else { return nil }
            let bits = UInt32(b[21]) | UInt32(b[22]) << 8 | UInt32(b[23]) << 16 | UInt32(b[24]) << 24
            return make("image/webp", width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return make("image/webp", width: le24(b, 24) + 1, height: le24(b, 27) + 1)
        default:
            return nil
        }
    }

    private static func make(_ mediaType: String, width: Int, height: Int) -> ImageFacts? {
        width > 0 && height > 0 ? ImageFacts(mediaType: mediaType, width: width, height: height) : nil
    }

    private static func be32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    private static func le16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    private static func le24(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }
}
