import CVips
import Contracts
import Envelope
import NIOPosix

/// An image as Melon keeps it: re-encoded from the decoded pixels, upright, without metadata.
public struct EncodedImage: Sendable, Equatable {
    public var mediaType: String
    public var bytes: [UInt8]
    public var width: Int
    public var height: Int
}

/// An upload turned into what is kept: the image (at most `ImageType.keptSide` a side, in its own
/// format; HEIC becomes JPEG) and its WebP thumbnail.
public struct ProcessedImage: Sendable, Equatable {
    public var full: EncodedImage
    public var thumbnail: EncodedImage
}

/// Bounds an upload is held to before its pixels are decoded.
public struct ImageLimits: Sendable {
    /// The longest side, read from the header (a decompression bomb declares a huge one).
    public var maxSide: Int
    /// The most pixels, read from the header.
    public var maxPixels: Int
    /// The shortest side (a profile picture of 2×2 pixels is a mistake).
    public var minSide: Int
    /// The most memory the decoded pixels may take (pixels × bands × sample size): a 16-bit RGBA
    /// file needs eight times what an 8-bit grey one of the same size does.
    public var maxDecodedBytes: Int

    public init(maxSide: Int = 12_000, maxPixels: Int = 50_000_000, minSide: Int = 1, maxDecodedBytes: Int = 160 << 20) {
        self.maxSide = maxSide
        self.maxPixels = maxPixels
        self.minSide = minSide
        self.maxDecodedBytes = maxDecodedBytes
    }
}

/// Checks uploads by their bytes and re-encodes them with libvips: the file must be the format it
/// claims, within the limits by its header before any pixel is decoded, and must decode without a
/// warning; what is kept is made from the pixels alone, so no metadata (EXIF with its GPS position,
/// XMP, IPTC, comments) survives. Only the JPEG, PNG, WebP and HEIF decoders are enabled.
public enum ImageProcessor {
    /// Checks and re-encodes `bytes`, declared as `mediaType`, on `pool` (the processor's own). Problems are
    /// `invalid` naming `field` (or `mediaTypeField`).
    public static func process(
        _ bytes: [UInt8], mediaType: String, limits: ImageLimits = .init(), field: String = "data.content", mediaTypeField: String = "data.mediaType",
        pool: NIOThreadPool = ImageProcessor.pool
    ) async throws -> ProcessedImage {
        guard let declared = ImageType(rawValue: mediaType) else {
            throw OperationError.invalid(field: mediaTypeField, "must be one of \(ImageType.mediaTypes.joined(separator: ", "))")
        }
        guard started else { throw OperationError(.internal, "libvips did not start") }
        let outcome = try await pool.runIfActive { Self.process(bytes, declared: declared, limits: limits) }
        switch outcome {
        case .success(let image): return image
        case .failure(let refusal): throw OperationError.invalid(field: field, refusal.description)
        }
    }

    /// Why an upload is refused, as the client is told.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case notAnImage
        case notWhatItClaims(actual: ImageType, declared: ImageType)
        case outOfBounds(width: Int, height: Int, limits: String)
        case damaged
        /// Even re-encoded at `ImageType.keptSide`, more than `ImageType.maxKeptBytes`.
        case tooDetailed

        public var description: String {
            switch self {
            case .notAnImage: "is not a JPEG, PNG, WebP or HEIC image"
            case .notWhatItClaims(let actual, let declared): "is \(actual.rawValue), not \(declared.rawValue)"
            case .outOfBounds(let width, let height, let limits): "is \(width)×\(height) pixels; \(limits)"
            case .damaged: "is damaged or incomplete: it does not decode cleanly"
            case .tooDetailed: "is too detailed to keep: re-encoded at \(ImageType.keptSide) pixels a side it is over \(ImageType.maxKeptBytes >> 20) MiB"
            }
        }
    }

    /// The work itself, on the calling thread.
    public static func process(_ bytes: [UInt8], declared: ImageType, limits: ImageLimits) -> Result<ProcessedImage, Refusal> {
        guard Self.started else { return .failure(.damaged) }
        return bytes.withUnsafeBytes { buffer -> Result<ProcessedImage, Refusal> in
            guard let base = buffer.baseAddress, let actual = sniff(base, buffer.count) else { return .failure(.notAnImage) }
            guard actual == declared else { return .failure(.notWhatItClaims(actual: actual, declared: declared)) }
            guard let header = melon_vips_header(base, buffer.count) else { discardError(); return .failure(.damaged) }
            defer { melon_vips_release(header) }
            if actual == .heic, melon_vips_text(header, "heif-compression").map({ String(cString: $0) }) != "hevc" {
                return .failure(.notAnImage)  // AVIF also comes through the HEIF decoder
            }
            let (width, height) = (Int(melon_vips_width(header)), Int(melon_vips_height(header)))
            guard max(width, height) <= limits.maxSide, min(width, height) >= limits.minSide, width * height <= limits.maxPixels,
                  width * height * Int(melon_vips_pixel_bytes(header)) <= limits.maxDecodedBytes
            else {
                return .failure(.outOfBounds(
                    width: width, height: height,
                    limits: "each side must be \(limits.minSide) to \(limits.maxSide), and at most \(limits.maxPixels) pixels "
                        + "(\(limits.maxDecodedBytes >> 20) MiB decoded) in all"))
            }
            let srgb: Int32 = melon_vips_has(header, "icc-profile-data") != 0 ? 1 : 0
            guard let kept = melon_vips_fit_buffer(base, buffer.count, Int32(ImageType.keptSide), actual == .heic ? 1 : 0, srgb) else {
                discardError()
                return .failure(.damaged)
            }
            defer { melon_vips_release(kept) }
            guard let thumbnail = melon_vips_fit(kept, Int32(ImageType.thumbnailSide)) else { discardError(); return .failure(.damaged) }
            defer { melon_vips_release(thumbnail) }
            let keptType: ImageType = actual == .heic ? .jpeg : actual
            guard var full = encode(kept, as: keptType), let small = encode(thumbnail, as: .webp) else { return .failure(.damaged) }
            if full.bytes.count > ImageType.maxKeptBytes, keptType == .png {
                // A detailed PNG (noise, a photo saved as PNG) is kept as lossy WebP, which keeps its transparency.
                guard let webp = encode(kept, as: .webp) else { return .failure(.damaged) }
                full = webp
            }
            guard full.bytes.count <= ImageType.maxKeptBytes else { return .failure(.tooDetailed) }
            return .success(ProcessedImage(full: full, thumbnail: small))
        }
    }

    /// The format `bytes` are, by the decoder libvips picks for them; nil for any other.
    public static func sniff(_ bytes: [UInt8]) -> ImageType? {
        guard Self.started else { return nil }
        return bytes.withUnsafeBytes { buffer in buffer.baseAddress.flatMap { sniff($0, buffer.count) } }
    }

    static func sniff(_ bytes: UnsafeRawPointer, _ count: Int) -> ImageType? {
        guard let loader = vips_foreign_find_load_buffer(bytes, count) else { discardError(); return nil }
        return switch String(cString: loader) {
        case "VipsForeignLoadJpegBuffer": .jpeg
        case "VipsForeignLoadPngBuffer": .png
        case "VipsForeignLoadWebpBuffer": .webp
        case "VipsForeignLoadHeifBuffer": .heic
        default: nil
        }
    }

    /// `image` without metadata, encoded as `type`.
    static func encode(_ image: UnsafeMutablePointer<VipsImage>, as type: ImageType) -> EncodedImage? {
        guard let bare = melon_vips_bare(image) else { discardError(); return nil }
        defer { melon_vips_release(bare) }
        let format: melon_vips_format = switch type {
        case .png: MELON_VIPS_PNG
        case .webp: MELON_VIPS_WEBP
        case .jpeg, .heic: MELON_VIPS_JPEG
        }
        var output: UnsafeMutableRawPointer?
        var length = 0
        guard melon_vips_save(bare, format, &output, &length) == 0, let output else { discardError(); return nil }
        defer { melon_vips_free(output) }
        let bytes = Array(UnsafeRawBufferPointer(start: output, count: length))
        return EncodedImage(
            mediaType: type == .heic ? ImageType.jpeg.rawValue : type.rawValue, bytes: bytes,
            width: Int(melon_vips_width(bare)), height: Int(melon_vips_height(bare)))
    }

    /// libvips started once for the process, with only Melon's four decoders enabled.
    static let started: Bool = melon_vips_start() == 0

    /// The threads images are decoded on: two, so that however many uploads come at once, at most
    /// two images are in memory decoded (libvips spreads each over the cores), and NIO's shared
    /// pool (Argon2 for logins) is not held up by them.
    public static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    /// libvips keeps one error text for the process; a refusal says what is wrong in our words.
    static func discardError() { melon_vips_free(melon_vips_take_error()) }
}
