// What an image upload costs the service that keeps it: ImageProcessor.process (check, decode,
// shrink to 2048, re-encode, WebP thumbnail) on phone-sized photos in each accepted format, one at a
// time and two at once on NIO's thread pool, as services run it. Usage: media-benchmark [--runs 3]
// [--uploads 8] [--width 4032 --height 3024]
import CVips
import Contracts
import Foundation
import Media

func option(_ name: String, _ fallback: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else { return fallback }
    return value
}

let runs = option("--runs", 3), uploads = option("--uploads", 8)
let (width, height) = (option("--width", 4_032), option("--height", 3_024))

/// A photo-like upload of `type` (noise compresses like a photo, not like a flat colour).
func upload(_ type: ImageType) -> [UInt8] {
    _ = ImageProcessor.sniff([])
    guard let image = melon_vips_noise(Int32(width), Int32(height)) else { fatalError("libvips could not make the image") }
    defer { melon_vips_release(image) }
    var output: UnsafeMutableRawPointer?
    var length = 0
    let saved: Int32 = switch type {
    case .jpeg: melon_vips_save(image, MELON_VIPS_JPEG, &output, &length)
    case .png: melon_vips_save(image, MELON_VIPS_PNG, &output, &length)
    case .webp: melon_vips_save(image, MELON_VIPS_WEBP, &output, &length)
    case .heic: melon_vips_save_heic(image, &output, &length)
    }
    guard saved == 0, let output else { fatalError("libvips could not encode \(type.rawValue)") }
    defer { melon_vips_free(output) }
    return Array(UnsafeRawBufferPointer(start: output, count: length))
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func seconds(_ duration: Duration) -> Double { Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }

print("\(width)×\(height) uploads, \(runs) runs of \(uploads), medians; \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("| format | upload KiB | kept KiB | thumbnail KiB | ms each, one at a time | uploads/s, two at once |")
print("|---|---|---|---|---|---|")
for type in ImageType.allCases {
    let bytes = upload(type)
    let kept = try await ImageProcessor.process(bytes, mediaType: type.rawValue)
    var serial: [Double] = [], parallel: [Double] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        for _ in 0..<uploads { _ = try await ImageProcessor.process(bytes, mediaType: type.rawValue) }
        serial.append(seconds(ContinuousClock.now - start) * 1_000 / Double(uploads))
        let both = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 { group.addTask { for _ in 0..<(uploads / 2) { _ = try await ImageProcessor.process(bytes, mediaType: type.rawValue) } } }
            try await group.waitForAll()
        }
        parallel.append(Double(uploads / 2 * 2) / seconds(ContinuousClock.now - both))
    }
    print("| \(type.rawValue) | \(bytes.count / 1024) | \(kept.full.bytes.count / 1024) | \(kept.thumbnail.bytes.count / 1024) | \(String(format: "%.0f", median(serial))) | \(String(format: "%.1f", median(parallel))) |")
}
