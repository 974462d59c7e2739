import Foundation
import Logging
import Metrics
import Testing
@testable import ServiceSupport

@Suite(.timeLimit(.minutes(2))) struct ObservabilityTests {
    @Test func jsonLogLinesCarryLevelMessageAndRequestIDs() throws {
        var handler = JSONLogHandler(label: "household")
        handler[metadataKey: "request_id"] = "r-1"
        let event = LogEvent(level: .warning, message: "chore overdue", metadata: ["trace_id": "t-1"], source: nil, file: #file, function: #function, line: #line)
        let line = try #require(handler.line(for: event))
        #expect(line.last == 0x0A)
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: String])
        #expect(object["level"] == "warning")
        #expect(object["logger"] == "household")
        #expect(object["message"] == "chore overdue")
        #expect(object["request_id"] == "r-1")
        #expect(object["trace_id"] == "t-1")
        #expect(object["time"].flatMap { try? Date($0, strategy: .iso8601) } != nil)
    }

    @Test func metricsAppearInThePrometheusExposition() {
        Observability.bootstrapMetrics()
        Counter(label: "melon_test_things_total", dimensions: [("kind", "widget")]).increment(by: 3)
        #expect(Observability.prometheusText().contains(#"melon_test_things_total{kind="widget"} 3"#))
    }
}
