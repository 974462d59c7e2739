import CVips
import Contracts
import NIOPosix
@testable import Media
import TestSupport

/// Uploads made for the media tests, with libvips itself where a real encoder is needed.
enum TestImages {
    /// A black `width`×`height` image encoded as `type` (HEIC with libheif's HEVC encoder), made on
    /// NIO's thread pool: libvips's work must not hold up the tests' cooperative threads.
    static func file(_ type: ImageType, width: Int = 64, height: Int = 48) async -> [UInt8] {
        try! await NIOThreadPool.singleton.runIfActive { encoded(type, width: width, height: height) }
    }

    private static func encoded(_ type: ImageType, width: Int, height: Int) -> [UInt8] {
        _ = ImageProcessor.started
        let image = melon_vips_blank(Int32(width), Int32(height))!
        defer { melon_vips_release(image) }
        guard type == .heic else { return ImageProcessor.encode(image, as: type)!.bytes }
        var output: UnsafeMutableRawPointer?
        var length = 0
        precondition(melon_vips_save_heic(image, &output, &length) == 0, "libheif's HEVC encoder")
        defer { melon_vips_free(output) }
        return Array(UnsafeRawBufferPointer(start: output, count: length))
    }
}
