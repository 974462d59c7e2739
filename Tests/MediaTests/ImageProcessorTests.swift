import CVips
import Contracts
import NIOPosix
import Envelope
@testable import Media
import Testing
import TestSupport

/// Uploads checked by their bytes and kept as re-encoded pixels, with libvips.
@Suite(.timeLimit(.minutes(5))) struct ImageProcessorTests {
    /// On NIO's thread pool, as the service runs it.
    private func process(_ bytes: [UInt8], as type: ImageType, limits: ImageLimits = .init()) async -> Result<ProcessedImage, ImageProcessor.Refusal> {
        try! await ImageProcessor.pool.runIfActive { ImageProcessor.process(bytes, declared: type, limits: limits) }
    }

    @Test(arguments: ImageType.allCases)
    func eachFormatIsKeptAsPixelsWithAWebPThumbnail(_ type: ImageType) async throws {
        let kept = try await process(await TestImages.file(type, width: 640, height: 480), as: type).get()
        #expect(kept.full.mediaType == (type == .heic ? "image/jpeg" : type.rawValue), "HEIC is kept as JPEG, which every client shows")
        #expect(kept.full.width == 640 && kept.full.height == 480)
        #expect(kept.thumbnail.mediaType == "image/webp" && kept.thumbnail.width == 320 && kept.thumbnail.height == 240)
        #expect(ImageProcessor.sniff(kept.full.bytes) == ImageType(rawValue: kept.full.mediaType), "the bytes are what the type says")
        #expect(ImageProcessor.sniff(kept.thumbnail.bytes) == .webp)
    }

    @Test func aLargeImageIsShrunkToTheKeptSideNeverEnlarged() async throws {
        let large = try await process(await TestImages.file(.png, width: 3_000, height: 1_500), as: .png).get()
        #expect((large.full.width, large.full.height) == (2_048, 1_024))
        #expect((large.thumbnail.width, large.thumbnail.height) == (320, 160))
        let small = try await process(await TestImages.file(.png, width: 40, height: 30), as: .png).get()
        #expect((small.full.width, small.thumbnail.width) == (40, 40), "never enlarged")
    }

    @Test func theGPSPositionAndAllOtherMetadataAreGone() async throws {
        let upload = ImageSamples.withGPSPosition(await TestImages.file(.jpeg))
        #expect(Self.fields(of: upload).contains("exif-ifd3-GPSLatitude"), "the upload carries a position libvips reads")
        let kept = try await process(upload, as: .jpeg).get()
        #expect(!ImageSamples.contains(kept.full.bytes, "Exif") && Self.fields(of: kept.full.bytes).allSatisfy { !$0.hasPrefix("exif-") }, "no EXIF at all")
        #expect(Self.fields(of: kept.thumbnail.bytes).allSatisfy { !$0.hasPrefix("exif-ifd3-") }, "no position in the WebP thumbnail either")
    }

    @Test func libvips814sWebPWriterKeepsNoMetadataEither() async throws {
        // 8.14's webpsave ignores `strip`; the fields are removed before any writer sees them.
        let upload = ImageSamples.withGPSPosition(await TestImages.file(.jpeg))
        let image = try #require(upload.withUnsafeBytes { melon_vips_fit_buffer($0.baseAddress, $0.count, 100, 0, 0) })
        defer { melon_vips_release(image) }
        #expect(Self.fields(of: ImageProcessor.encode(image, as: .jpeg)!.bytes).allSatisfy { !$0.hasPrefix("exif-") })
        // It writes libexif's defaults, made afresh (resolution, size, EXIF version): nothing of the upload's.
        let webp = try #require(ImageProcessor.encode(image, as: .webp))
        #expect(Self.fields(of: webp.bytes).allSatisfy { !$0.hasPrefix("exif-ifd3-") && !$0.hasPrefix("exif-ifd1-") }, "no GPS position")
    }

    @Test func aFileThatIsNotWhatItClaimsIsRefused() async {
        #expect(await process(await TestImages.file(.jpeg), as: .png) == .failure(.notWhatItClaims(actual: .jpeg, declared: .png)))
        #expect(await process(Array("hello".utf8), as: .png) == .failure(.notAnImage))
    }

    @Test func decodersOtherThanTheFourAreNeverReached() async {
        let gif: [UInt8] = [
            0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x21, 0xF9, 0x04, 0x01,
            0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x01, 0x44, 0x00, 0x3B,
        ]
        let svg = Array("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>".utf8)
        let pdf = Array("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF".utf8)
        for file in [gif, svg, pdf] {
            #expect(await process(file, as: .png) == .failure(.notAnImage))
            let opened = file.withUnsafeBytes { melon_vips_header($0.baseAddress, $0.count) }
            #expect(opened == nil, "libvips itself refuses to decode it: its loader is blocked")
            if let opened { melon_vips_release(opened) }
            ImageProcessor.discardError()
        }
    }

    @Test func aHeaderClaimingTooManyPixelsIsRefusedBeforeDecoding() async {
        let bomb = ImageSamples.claiming(await TestImages.file(.png, width: 40, height: 30), width: 60_000, height: 60_000)
        guard case .failure(.outOfBounds(let width, let height, _)) = await process(bomb, as: .png) else {
            Issue.record("a 3.6-gigapixel header must be refused")
            return
        }
        #expect((width, height) == (60_000, 60_000))
        let small = await TestImages.file(.png, width: 40, height: 30)
        #expect(await process(small, as: .png, limits: .init(minSide: 64)).isFailure, "below the shortest side")
        #expect(await process(small, as: .png, limits: .init(maxDecodedBytes: 40 * 30 * 3 - 1)).isFailure, "more memory decoded than allowed: 3 bytes a pixel")
        #expect(await process(small, as: .png, limits: .init(maxDecodedBytes: 40 * 30 * 3)).isSuccess)
    }

    @Test func aPNGTooDetailedToKeepAsPNGIsKeptAsWebP() async throws {
        // Noise at the kept side makes a PNG over the 4 MiB a kept file may be (its base64 must fit the bus).
        let kept = try await process(await TestImages.file(.png, width: 2_048, height: 2_048, noise: true), as: .png).get()
        #expect(kept.full.mediaType == "image/webp" && kept.full.bytes.count <= ImageType.maxKeptBytes, "\(kept.full.bytes.count) bytes")
    }

    @Test func aTruncatedFileIsRefusedAsDamaged() async {
        let jpeg = await TestImages.file(.jpeg, width: 640, height: 480)
        #expect(await process(Array(jpeg.prefix(jpeg.count / 2)), as: .jpeg) == .failure(.damaged))
    }

    @Test func refusalsNameTheField() async {
        await #expect(throws: OperationError.invalid(field: "data.content", ImageProcessor.Refusal.notAnImage.description)) {
            try await ImageProcessor.process(Array("hello".utf8), mediaType: "image/png")
        }
        let error = await #expect(throws: OperationError.self) { try await ImageProcessor.process(await TestImages.file(.png), mediaType: "image/gif") }
        #expect(error?.fields.map(\.field) == ["data.mediaType"])
    }

    /// The metadata fields libvips reads from `bytes`.
    static func fields(of bytes: [UInt8]) -> [String] {
        bytes.withUnsafeBytes { buffer in
            guard let image = melon_vips_header(buffer.baseAddress, buffer.count) else { return [] }
            defer { melon_vips_release(image) }
            guard let names = vips_image_get_fields(image) else { return [] }
            defer { g_strfreev(names) }
            var fields: [String] = []
            var index = 0
            while let name = names[index] { fields.append(String(cString: name)); index += 1 }
            return fields
        }
    }
}

extension Result {
    var isFailure: Bool { if case .failure = self { true } else { false } }
    var isSuccess: Bool { !isFailure }
}
