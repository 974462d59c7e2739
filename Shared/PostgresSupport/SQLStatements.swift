/// Splits a SQL script into statements at top-level semicolons, as psql does: semicolons inside
/// 'strings', "identifiers", -- comments, /* nested */ comments and $tag$ dollar quotes do not count.
/// (PostgresNIO sends one statement per query, through the extended protocol.)
enum SQLStatements {
    static func split(_ script: String) -> [String] {
        let b = Array(script.utf8)
        var statements: [String] = []
        var start = 0
        var i = 0
        func flush(_ end: Int) {
            let text = String(decoding: b[start..<end], as: UTF8.self)
            if !isBlank(text) { statements.append(text.trimmingWhitespace()) }
        }
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                let quote = b[i]
                i += 1
                while i < b.count {
                    if b[i] == quote {
                        if i + 1 < b.count, b[i + 1] == quote { i += 2; continue }  // doubled quote
                        break
                    }
                    i += 1
                }
                i += 1
            case UInt8(ascii: "-") where i + 1 < b.count && b[i + 1] == UInt8(ascii: "-"):
                while i < b.count, b[i] != 0x0A { i += 1 }
            case UInt8(ascii: "/") where i + 1 < b.count && b[i + 1] == UInt8(ascii: "*"):
                var depth = 0
                repeat {
                    if i + 1 < b.count, b[i] == UInt8(ascii: "/"), b[i + 1] == UInt8(ascii: "*") { depth += 1; i += 2 }
                    else if i + 1 < b.count, b[i] == UInt8(ascii: "*"), b[i + 1] == UInt8(ascii: "/") { depth -= 1; i += 2 }
                    else { i += 1 }
                } while depth > 0 && i < b.count
            case UInt8(ascii: "$"):
                // $tag$ ... $tag$, where tag is empty or an identifier.
                var j = i + 1
                while j < b.count, b[j] == UInt8(ascii: "_") || (0x61...0x7A).contains(b[j]) || (0x41...0x5A).contains(b[j]) || (0x30...0x39).contains(b[j]) { j += 1 }
                guard j < b.count, b[j] == UInt8(ascii: "$") else { i += 1; continue }
                let tag = Array(b[i...j])
                i = j + 1
                while i < b.count, !(b[i] == UInt8(ascii: "$") && b[i...].starts(with: tag)) { i += 1 }
                i = min(b.count, i + tag.count)
            case UInt8(ascii: ";"):
                flush(i)
                i += 1
                start = i
            default:
                i += 1
            }
        }
        flush(b.count)
        return statements
    }

    /// True when `text` holds only whitespace and comments.
    private static func isBlank(_ text: String) -> Bool {
        var rest = Substring(text)
        while let first = rest.first {
            if first.isWhitespace {
                rest = rest.dropFirst()
            } else if rest.hasPrefix("--") {
                rest = rest.drop(while: { $0 != "\n" })
            } else if rest.hasPrefix("/*"), let end = rest.range(of: "*/") {
                rest = rest[end.upperBound...]
            } else {
                return false
            }
        }
        return true
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
