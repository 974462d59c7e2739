import Envelope
import Foundation
import Synchronization

extension Schema {
    /// What is wrong with `value` against this schema, field by field (`data.items[2].name`), in the
    /// order the schema declares its members; empty when it conforms. Absent and null optional members
    /// are fine (Swift reads both as nil); unknown members are ignored, as the envelope ignores them.
    public func problems(_ value: JSONValue, at path: String) -> [OperationError.FieldIssue] {
        var issues: [OperationError.FieldIssue] = []
        check(value, at: path, into: &issues)
        return issues
    }

    private func check(_ value: JSONValue, at path: String, into issues: inout [OperationError.FieldIssue]) {
        func fail(_ message: String) { issues.append(.init(field: path, message: message)) }
        if isAny {
            if let bounds = anyBounds, let problem = value.exceeding(bounds) { fail(problem) }
            return
        }
        switch (kind, value) {
        case (.object, .object(let members)):
            if isDictionary {
                if let count, !count.contains(members.count) { return fail("must have \(count.lowerBound.grouped) to \(count.upperBound.grouped) members") }
                if let keyLength, let key = members.keys.first(where: { !keyLength.contains($0.unicodeScalars.count) }) {
                    return fail("has a member name of \(key.unicodeScalars.count.grouped) characters; names are \(keyLength.lowerBound) to \(keyLength.upperBound)")
                }
                guard let element else { return }
                for key in members.keys.sorted() { element.check(members[key]!, at: "\(path).\(key)", into: &issues) }
                return
            }
            for property in properties {
                let member = members[property.name] ?? .null
                if case .null = member {
                    if property.isRequired { issues.append(.init(field: "\(path).\(property.name)", message: "is required")) }
                    continue
                }
                property.schema.check(member, at: "\(path).\(property.name)", into: &issues)
            }
        case (.array, .array(let items)):
            if let count, !count.contains(items.count) {
                fail("must have \(count.lowerBound.grouped) to \(count.upperBound.grouped) items")
            }
            guard let element else { return }
            for (index, item) in items.enumerated() { element.check(item, at: "\(path)[\(index)]", into: &issues) }
        case (.string, .string(let text)):
            if format == "date-time", RFC3339.date(from: text) == nil {
                fail("must be a date and time in RFC 3339, with a time zone (2026-11-21T14:00:00.000Z)")
            } else if let allowed, !allowed.contains(text) {
                fail("must be one of \(allowed.joined(separator: ", "))")
            } else if let length, !length.contains(text.unicodeScalars.count) {
                fail("must be \(length.lowerBound.grouped) to \(length.upperBound.grouped) characters")
            } else if let pattern, !Self.matches(text, pattern) {
                fail("must be \(patternMeaning ?? "text matching \(pattern)")")
            } else if contentEncoding == "base64", Data(base64Encoded: text) == nil {
                fail("must be base64")
            }
        case (.integer, .number(let number)):
            guard number.rounded() == number else { return fail("must be a whole number") }
            let bounds = range ?? Int64.min...Int64.max
            // A whole number past 64 bits is out of range, not a fraction (1e20 for an amount).
            guard let whole = Int64(exactly: number) else { return fail(Self.outOf(bounds)) }
            if let allowedIntegers, !allowedIntegers.contains(whole) {
                fail("must be one of \(allowedIntegers.map(String.init).joined(separator: ", "))")
            } else if !bounds.contains(whole) {
                fail(Self.outOf(bounds))
            }
        case (.number, .number), (.boolean, .bool):
            break
        default:
            fail("must be \(kind.article)")
        }
    }

    /// What a whole number outside `bounds` is told.
    private static func outOf(_ bounds: ClosedRange<Int64>) -> String {
        bounds.upperBound == Int64.max && bounds.lowerBound != Int64.min
            ? "must be at least \(bounds.lowerBound.grouped)" : "must be from \(bounds.lowerBound.grouped) to \(bounds.upperBound.grouped)"
    }

    private static let expressions = Mutex<[String: NSRegularExpression]>([:])

    static func matches(_ text: String, _ pattern: String) -> Bool {
        let expression = expressions.withLock { cache -> NSRegularExpression? in
            if let known = cache[pattern] { return known }
            let made = try? NSRegularExpression(pattern: pattern)
            cache[pattern] = made
            return made
        }
        guard let expression else { return false }
        let range = NSRange(text.startIndex..., in: text)
        return expression.firstMatch(in: text, range: range) != nil
    }
}

extension Schema.Kind {
    /// "a string", "a whole number", ... for messages.
    var article: String {
        switch self {
        case .string: "a string"
        case .integer: "a whole number"
        case .number: "a number"
        case .boolean: "true or false"
        case .object: "an object"
        case .array: "an array"
        }
    }
}

extension JSONValue {
    /// Why this value is beyond `bounds` (too deep, too large), or nil; stops as soon as it knows.
    func exceeding(_ bounds: AnyValueBounds) -> String? {
        var bytes = 0
        func walk(_ value: JSONValue, depth: Int) -> String? {
            guard depth <= bounds.depth else { return "must nest at most \(bounds.depth) levels" }
            switch value {
            case .null, .bool: bytes += 5
            case .number: bytes += 8
            case .string(let text): bytes += text.utf8.count + 3
            case .array(let items):
                bytes += 2
                for item in items { if let problem = walk(item, depth: depth + 1) { return problem } }
            case .object(let members):
                bytes += 2
                for (key, member) in members {
                    bytes += key.utf8.count + 4
                    if let problem = walk(member, depth: depth + 1) { return problem }
                }
            }
            return bytes > bounds.bytes ? "must be at most \(bounds.bytes.grouped) bytes of JSON" : nil
        }
        return walk(self, depth: 1)
    }
}
