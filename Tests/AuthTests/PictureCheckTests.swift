@testable import AuthService
import Contracts
import Envelope
import Foundation
import Testing
import TestSupport

/// Profile pictures are checked for what their bytes are: format, pixel size and file size.
@Suite(.timeLimit(.minutes(2))) struct PictureCheckTests {
    @Test(arguments: [
        (ImageSamples.png40x30, "image/png"), (ImageSamples.jpeg40x30, "image/jpeg"),
        (ImageSamples.webpLossy40x30, "image/webp"), (ImageSamples.webpLossless40x30, "image/webp"),
    ])
    func realFilesAreReadForTheirFormatAndSize(_ bytes: [UInt8], _ mediaType: String) {
        #expect(ImageFacts.inspect(bytes) == ImageFacts(mediaType: mediaType, width: 40, height: 30))
    }

    @Test func anExtendedWebPHeaderGivesTheCanvasSize() {
        var bytes = Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0x10, 0, 0, 0]
        bytes += [0x1F, 0x03, 0x00, 0xFF, 0x01, 0x00]  // width 800, height 512, each less one, 24-bit little-endian
        #expect(ImageFacts.inspect(bytes) == ImageFacts(mediaType: "image/webp", width: 800, height: 512))
    }

    @Test func otherFilesAreNotImages() {
        #expect(ImageFacts.inspect(Array("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8)) == nil)
        #expect(ImageFacts.inspect(Array("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8)) == nil)
        #expect(ImageFacts.inspect(Array(ImageSamples.png40x30.prefix(16))) == nil, "cut before the size")
        #expect(ImageFacts.inspect(Array(ImageSamples.jpeg40x30.prefix(40))) == nil, "cut before the frame header")
    }

    func problems(_ mediaType: String, _ bytes: [UInt8]) -> OperationError? {
        do {
            _ = try PictureHandlers.check(.init(mediaType: mediaType, content: Data(bytes)), maxBytes: 512 * 1024)
            return nil
        } catch {
            return error as? OperationError
        }
    }

    @Test func aClaimedTypeMustMatchTheBytes() {
        #expect(problems("image/png", ImageSamples.png40x30) == nil)
        #expect(problems("image/png", ImageSamples.jpeg40x30)?.fields == [.init(field: "data.content", message: "is image/jpeg, not image/png")])
        #expect(problems("image/gif", ImageSamples.png40x30)?.fields.map(\.field) == ["data.mediaType"])
        #expect(problems("image/png", Array("not an image at all".utf8))?.fields.map(\.field) == ["data.content"])
    }

    @Test func tinyAndOversizedPicturesAreRefused() {
        #expect(problems("image/png", ImageSamples.png8x8)?.code == .invalid)
        let big = problems("image/png", ImageSamples.png40x30 + [UInt8](repeating: 0, count: 512 * 1024))
        #expect(big?.code == .tooLarge && big?.fields.map(\.field) == ["data.content"])
    }
}
