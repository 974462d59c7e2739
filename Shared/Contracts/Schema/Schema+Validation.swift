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
        if isAny { return }
        switch (kind, value) {
        case (.object, .object(let members)):
            if isDictionary {
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
            if let allowed, !allowed.contains(text) {
                fail("must be one of \(allowed.joined(separator: ", "))")
            } else if let length, !length.contains(text.unicodeScalars.count) {
                fail("must be \(length.lowerBound.grouped) to \(length.upperBound.grouped) characters")
            } else if let pattern, !Self.matches(text, pattern) {
                fail("must be \(patternMeaning ?? "text matching \(pattern)")")
            } else if contentEncoding == "base64", Data(base64Encoded: text) == nil {
                fail("must be base64")
            }
        case (.integer, .number(let number)):
            guard number.rounded() == number, let whole = Int64(exactly: number) else { return fail("must be a whole number") }
            if let range, !range.contains(whole) {
                if range.upperBound == Int64.max {
                    fail("must be at least \(range.lowerBound.grouped)")
                } else {
                    fail("must be from \(range.lowerBound.grouped) to \(range.upperBound.grouped)")
                }
            }
        case (.number, .number), (.boolean, .bool):
            break
        default:
            fail("must be \(kind.article)")
        }
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
