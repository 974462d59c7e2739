import Foundation

/// One `Range: bytes=…` request (RFC 9110, 14.1.2) against a file of `length` bytes. Melon serves
/// one range at most: a request for several, or one it cannot read, gets the whole file, as the RFC
/// allows a server to.
enum ByteRange: Equatable {
    case whole
    case partial(ClosedRange<Int>)
    /// 416, with `Content-Range: bytes */length`.
    case unsatisfiable

    init(header: String, length: Int) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), text.utf8.count <= 100 else { self = .whole; return }
        let specs = text.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1, let dash = specs[0].firstIndex(of: "-") else { self = .whole; return }
        let (first, last) = (specs[0][..<dash].trimmingCharacters(in: .whitespaces), specs[0][specs[0].index(after: dash)...].trimmingCharacters(in: .whitespaces))
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit), !(first.isEmpty && last.isEmpty) else { self = .whole; return }
        if first.isEmpty {
            // The last n bytes.
            guard let count = Int(last) ?? (last.isEmpty ? nil : Int.max), count > 0, length > 0 else { self = .unsatisfiable; return }
            self = .partial(max(0, length - count)...(length - 1))
            return
        }
        guard let start = Int(first) else { self = .unsatisfiable; return }
        let end = last.isEmpty ? Int.max : (Int(last) ?? Int.max)
        guard start <= end else { self = .whole; return }
        guard start < length else { self = .unsatisfiable; return }
        self = .partial(start...min(end, length - 1))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
