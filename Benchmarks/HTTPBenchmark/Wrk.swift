import Foundation

/// Runs wrk (Debian's `wrk`) against the gateway and reads its report.
enum Wrk {
    static func run(url: String, body: String? = nil, headers: [String: String] = [:], connections: Int? = nil,
                    options: Options) async throws -> Measurement.Figures {
        let connections = connections ?? options.connections
        var arguments = ["-t\(min(2, connections))", "-c\(connections)", "-d\(options.duration)s", "--latency", "--timeout", "10s"]
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        if let body {
            let script = FileManager.default.temporaryDirectory.appendingPathComponent("melon-bench-post.lua")
            try """
                wrk.method = "POST"
                wrk.body = '\(body)'
                wrk.headers["Content-Type"] = "application/json"
                """.write(to: script, atomically: true, encoding: .utf8)
            arguments += ["-s", script.path]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments = arguments + [url]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return parse(output)
    }

    /// Requests/sec, the 50% and 99% latency lines, and non-2xx responses plus socket errors.
    static func parse(_ report: String) -> Measurement.Figures {
        var figures = Measurement.Figures(rate: 0, p50: 0, p99: 0, errors: 0)
        for line in report.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.hasPrefix("Requests/sec:"), let value = fields.last.flatMap({ Double($0) }) { figures.rate = value }
            if line.hasPrefix("50%"), fields.count > 1 { figures.p50 = microseconds(fields[1]) }
            if line.hasPrefix("99%"), fields.count > 1 { figures.p99 = microseconds(fields[1]) }
            if line.hasPrefix("Non-2xx"), let value = fields.last.flatMap({ Int($0) }) { figures.errors += value }
            if line.hasPrefix("Socket errors:") {
                figures.errors += fields.compactMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: ","))) }.reduce(0, +)
            }
        }
        return figures
    }

    /// `812.00us`, `1.23ms`, `2.00s` in microseconds.
    static func microseconds(_ text: Substring) -> Double {
        for (unit, scale) in [("us", 1.0), ("ms", 1000.0), ("s", 1_000_000.0)] where text.hasSuffix(unit) {
            return (Double(text.dropLast(unit.count)) ?? 0) * scale
        }
        return 0
    }
}
