@testable import GatewayService
import Testing

/// `Range: bytes=…` read as RFC 9110 has it, one range at most.
@Suite(.timeLimit(.minutes(1))) struct ByteRangeTests {
    @Test func rangesWithinTheFile() {
        #expect(ByteRange(header: "bytes=0-99", length: 1_000) == .partial(0...99))
        #expect(ByteRange(header: "bytes=900-", length: 1_000) == .partial(900...999), "to the end")
        #expect(ByteRange(header: "bytes=-100", length: 1_000) == .partial(900...999), "the last 100")
        #expect(ByteRange(header: "bytes=990-5000", length: 1_000) == .partial(990...999), "an end past the file is the file's end")
        #expect(ByteRange(header: "bytes=-5000", length: 1_000) == .partial(0...999))
        #expect(ByteRange(header: "bytes=0-99999999999999999999999", length: 1_000) == .partial(0...999), "a number too long for Int")
    }

    @Test func rangesOutsideTheFileAre416() {
        #expect(ByteRange(header: "bytes=1000-", length: 1_000) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=-0", length: 1_000) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=0-", length: 0) == .unsatisfiable)
    }

    @Test func whatIsNotOneReadableRangeGetsTheWholeFile() {
        for header in ["bytes=0-1,5-6", "items=0-1", "bytes=5-1", "bytes=-", "bytes=a-b", "bytes=0x1-2", "bytes=٣-٤", "", "bytes=" + String(repeating: "0", count: 100) + "0-1"] {
            #expect(ByteRange(header: header, length: 1_000) == .whole, "\(header)")
        }
    }
}
