import Testing
@testable import Envelope

@Suite struct TraceParentTests {
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
