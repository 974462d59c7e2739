import Foundation
import Testing
import TestSupport

/// Files, or blocks of files, that the repository commits but the code makes: each test compares what
/// is committed with what the code would write now, and `MELON_WRITE_DOCS=1` writes it instead.
enum GeneratedFiles {
    static let root = BuildProducts.packageRoot()
    static var writing: Bool { ProcessInfo.processInfo.environment["MELON_WRITE_DOCS"] == "1" }

    /// How a file marks a generated block: `<!-- generated: NAME -->` in Markdown, `# generated: NAME`
    /// in YAML and shell (each marker on a line of its own).
    enum Markers {
        case markdown, hash

        func start(_ name: String) -> String {
            self == .markdown ? "<!-- generated: \(name) -->\n" : "# generated: \(name)\n"
        }

        func end(_ name: String) -> String {
            self == .markdown ? "<!-- end: \(name) -->" : "# end: \(name)"
        }
    }

    /// Checks (or writes) the blocks of the file at `path`, by name.
    static func check(_ path: String, blocks: [String: String], markers: Markers) throws {
        let url = root.appendingPathComponent(path)
        var text = try String(contentsOf: url, encoding: .utf8)
        for (name, block) in blocks.sorted(by: { $0.key < $1.key }) {
            let start = markers.start(name), end = markers.end(name)
            let block = block + "\n"
            guard let opening = text.range(of: start), let closing = text.range(of: end, range: opening.upperBound..<text.endIndex) else {
                Issue.record("\(path) has no generated \(name) block (\(start.trimmingCharacters(in: .newlines)) ... \(end))")
                continue
            }
            if writing {
                text.replaceSubrange(opening.upperBound..<closing.lowerBound, with: block)
            } else {
                #expect(String(text[opening.upperBound..<closing.lowerBound]) == block, "\(path): the \(name) block differs; MELON_WRITE_DOCS=1 rewrites it")
            }
        }
        // In place, so the file keeps its mode (run.sh stays executable).
        if writing { try text.write(to: url, atomically: false, encoding: .utf8) }
    }

    /// Checks (or writes) the whole file at `path`.
    static func check(_ path: String, whole current: String) throws {
        let url = root.appendingPathComponent(path)
        if writing { return try current.write(to: url, atomically: false, encoding: .utf8) }
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(committed == current, "\(path) differs from what the code makes: MELON_WRITE_DOCS=1 rewrites it")
    }
}
