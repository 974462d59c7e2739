@testable import AuthService
import Foundation
import Media
import Testing
import TestSupport

/// An account without a picture shows one drawn from its id: a real PNG, its own, always the same.
@Suite(.timeLimit(.minutes(2))) struct DefaultPictureTests {
    @Test func itIsAPNGThatAnIndependentReaderDecodes() async throws {
        let account = UUID()
        let png = DefaultPicture.png(for: account)
        let read = try await PNGInspection.of(png)
        #expect(read.width == 240 && read.height == 240)
        #expect(read.palette.count == 2 && read.palette[0] == [0xF2, 0xF2, 0xF2] && read.palette[1] != read.palette[0])
        #expect(read.pixels.values.reduce(0, +) == 240 * 240)
        let cells = DefaultPicture.pattern(DefaultPicture.digest(of: account)).joined().filter { $0 }.count
        #expect(read.pixels[1, default: 0] == cells * 40 * 40, "each filled cell is 40×40 pixels of the colour")
        let kept = try await ImageProcessor.process(Array(png), mediaType: "image/png")
        #expect((kept.full.width, kept.full.height) == (240, 240), "our own upload check accepts it")
        #expect(DefaultPicture.info(since: Date()).size == png.count, "every account's file has the size the facts give")
    }

    @Test func eachAccountHasItsOwnAndItNeverChanges() {
        let account = UUID()
        #expect(DefaultPicture.png(for: account) == DefaultPicture.png(for: account))
        let others = Set((0..<20).map { _ in DefaultPicture.png(for: UUID()) })
        #expect(others.count == 20)
        #expect(others.allSatisfy { $0.count == DefaultPicture.size }, "one size for all, so the facts need not draw it")
    }

    @Test func theChecksumsAreTheStandardOnes() {
        // The check values of RFC 1952 (CRC-32) and RFC 1950 (Adler-32 of "Wikipedia" is 0x11E60398).
        #expect(DefaultPicture.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Array(DefaultPicture.zlibStored(Array("Wikipedia".utf8)).suffix(4)) == [0x11, 0xE6, 0x03, 0x98])
    }
}
