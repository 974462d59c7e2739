import Foundation

/// What Python's zlib reads in a PNG file, independently of our writer (`Tests/Images/inspect_png.py`):
/// every chunk's CRC checked, the pixel data inflated and counted per palette index.
public struct PNGInspection: Sendable {
    public let width: Int
    public let height: Int
    public let palette: [[Int]]
    /// How many pixels show each palette index.
    public let pixels: [Int: Int]

    public static func of(_ png: Data) async throws -> PNGInspection {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("melon-inspect-\(UUID().uuidString).png")
        try png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = BuildProducts.packageRoot().appendingPathComponent("Tests/Images/inspect_png.py").path
        let run = try ChildProcess(executable: "/usr/bin/python3", arguments: [script, file.path], name: "inspect-png")
        guard await run.wait(timeout: .seconds(30)) == 0, let last = run.output.split(separator: "\n").last,
              let report = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
        else { throw PDFInspection.Unreadable(description: "inspect_png.py failed: \(run.output)") }
        let counts = (report["pixels"] as? [String: Int] ?? [:]).reduce(into: [Int: Int]()) { $0[Int($1.key) ?? -1] = $1.value }
        return PNGInspection(
            width: report["width"] as? Int ?? 0, height: report["height"] as? Int ?? 0, palette: report["palette"] as? [[Int]] ?? [],
            pixels: counts)
    }
}
