import Foundation
import Testing
@testable import Envelope

@Suite(.timeLimit(.minutes(2))) struct RFC3339Tests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_795_271_369.123)) == "2026-11-21T14:29:29.123Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
    }

    @Test func parsesFractionsAndOffsets() {
        #expect(RFC3339.date(from: "2026-11-21T14:29:29Z") == Date(timeIntervalSince1970: 1_795_271_369))
        #expect(RFC3339.date(from: "2026-11-21T14:29:29.5Z") == Date(timeIntervalSince1970: 1_795_271_369.5))
        #expect(RFC3339.date(from: "2026-11-21T15:29:29+01:00") == Date(timeIntervalSince1970: 1_795_271_369))
        #expect(RFC3339.date(from: "2026-11-21T09:29:29.000-05:00") == Date(timeIntervalSince1970: 1_795_271_369))
    }

    @Test(arguments: ["", "2026-11-21", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-21T24:00:00Z",
                      "2026-11-21T14:29:29", "2026-11-21T14:29:29.Z", "2026-11-21 14:29:29Z", "2026-11-21T14:29:29+0100"])
    func rejectsWhatIsNotADateTime(_ text: String) {
        #expect(RFC3339.date(from: text) == nil)
    }

    @Test func readsAFullDateOnlyWhenTheDayExists() {
        #expect(RFC3339.fullDate(from: "1958-03-02").map { [$0.year, $0.month, $0.day] } == [1958, 3, 2])
        #expect(RFC3339.fullDate(from: "2024-02-29")?.day == 29)
        for text in ["2023-02-29", "2024-02-30", "2024-13-01", "2024-00-10", "2024-1-01", "2024-01-01T00:00:00Z", "२०२४-०१-०१", "2024/01/01", ""] {
            #expect(RFC3339.fullDate(from: text) == nil, "\(text)")
        }
    }

    @Test func roundTripsAnyMillisecond() {
        for _ in 0..<1000 {
            let milliseconds = Int64.random(in: -2_000_000_000_000...4_000_000_000_000)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let parsed = RFC3339.date(from: RFC3339.string(from: date))
            #expect(parsed.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == milliseconds)
        }
    }
}
