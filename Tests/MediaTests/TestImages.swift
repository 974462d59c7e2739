import CVips
import Contracts
import NIOPosix
@testable import Media
import TestSupport

/// Uploads made for the media tests, with libvips itself where a real encoder is needed.
enum TestImages {
    /// A black (or noisy) `width`×`height` image encoded as `type` (HEIC with libheif's HEVC encoder), made on
    /// NIO's thread pool: libvips's work must not hold up the tests' cooperative threads.
    static func file(_ type: ImageType, width: Int = 64, height: Int = 48, noise: Bool = false) async -> [UInt8] {
        try! await ImageProcessor.pool.runIfActive { encoded(type, width: width, height: height, noise: noise) }
    }

    private static func encoded(_ type: ImageType, width: Int, height: Int, noise: Bool) -> [UInt8] {
        _ = ImageProcessor.started
        let image = (noise ? melon_vips_noise : melon_vips_blank)(Int32(width), Int32(height))!
        defer { melon_vips_release(image) }
        guard type == .heic else { return ImageProcessor.encode(image, as: type)!.bytes }
        var output: UnsafeMutableRawPointer?
        var length = 0
        precondition(melon_vips_save_heic(image, &output, &length) == 0, "libheif's HEVC encoder")
        defer { melon_vips_free(output) }
        return Array(UnsafeRawBufferPointer(start: output, count: length))
    }
}
