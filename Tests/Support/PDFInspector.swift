import Foundation

/// What an independent parser (pypdf, from the test tools) reads in a PDF: pages, encryption, form
/// field values, the text each field's appearance draws, and each page's text (`Tests/Mail/inspect_pdf.py`).
public struct PDFInspection: Sendable {
    public let encrypted: Bool
    /// False when encrypted and the password (if any) did not open it.
    public let opened: Bool
    public let encryption: [String: Int]
    public let pages: Int
    public let fields: [String: String]
    public let appearances: [String: String]
    public let text: [String]

    /// Reads `pdf`, opening it with `password` when it is encrypted.
    public static func of(_ pdf: Data, password: String? = nil) async throws -> PDFInspection {
        guard let tools = ProcessInfo.processInfo.environment["MELON_TEST_TOOLS"] else {
            throw Unreadable(description: "MELON_TEST_TOOLS is not set: run the tests with ./deploy/test.sh, which installs pypdf")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("melon-inspect-\(UUID().uuidString).pdf")
        try pdf.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = BuildProducts.packageRoot().appendingPathComponent("Tests/Mail/inspect_pdf.py").path
        let run = try ChildProcess(executable: "\(tools)/python3", arguments: [script, file.path] + (password.map { [$0] } ?? []), name: "inspect-pdf")
        guard await run.wait(timeout: .seconds(60)) == 0, let last = run.output.split(separator: "\n").last,
              let report = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else {
            throw Unreadable(description: "inspect_pdf.py failed: \(run.output)")
        }
        return PDFInspection(
            encrypted: report["encrypted"] as? Bool ?? false, opened: report["opened"] as? Bool ?? false,
            encryption: report["encryption"] as? [String: Int] ?? [:], pages: report["pages"] as? Int ?? 0,
            fields: (report["fields"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String },
            appearances: report["appearances"] as? [String: String] ?? [:], text: report["text"] as? [String] ?? [])
    }

    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }
}
