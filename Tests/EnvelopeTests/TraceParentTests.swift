import Foundation
import Testing
@testable import Envelope

@Suite(.timeLimit(.minutes(2))) struct TraceParentTests {
    @Test func parsesAndPrintsTheW3CFormat() throws {
        let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let parsed = try #require(TraceParent(header))
        #expect(parsed.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parsed.parentID == "00f067aa0ba902b7")
        #expect(parsed.description == header)
    }

    @Test(arguments: ["", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                      "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"])
    func refusesInvalidHeaders(_ header: String) {
        #expect(TraceParent(header) == nil)
    }

    @Test func childrenKeepTheTraceAndGetANewSpan() throws {
        let root = TraceParent.random()
        let child = root.child()
        #expect(child.traceID == root.traceID)
        #expect(child.parentID != root.parentID)
        #expect(TraceParent(child.description) == child)
    }
}

@Suite(.timeLimit(.minutes(2))) struct RandomIDTests {
    @Test func uuidsAreVersion4AndDistinct() throws {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = RandomID.uuid()
            let parsed = try #require(UUID(uuidString: id))
            #expect(id == parsed.uuidString.lowercased())
            #expect(Array(id.utf8)[14] == UInt8(ascii: "4"))
            #expect("89ab".utf8.contains(Array(id.utf8)[19]))
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
    }

    @Test func hexHasTheRequestedLength() {
        #expect(RandomID.hex(bytes: 16).utf8.count == 32)
        #expect(RandomID.hex(bytes: 8).allSatisfy { "0123456789abcdef".contains($0) })
    }
}
