import Foundation

/// The top-level members of an envelope, read by name, with failures as `invalid` naming the member.
struct JSONObjectReader {
    let bytes: [UInt8]
    private var members: [String: JSONScanner.Member] = [:]

    /// Fails with `invalid` when `bytes` is not one JSON object or names a member twice.
    init(_ bytes: [UInt8]) throws(OperationError) {
        guard let scanned = JSONScanner.members(of: bytes) else {
            throw OperationError(.invalid, "the message is not valid JSON")
        }
        self.bytes = bytes
        for member in scanned {
            guard let key = JSONPeek.unescape(bytes[member.key]) else { throw OperationError(.invalid, "the message is not valid JSON") }
            guard members.updateValue(member, forKey: key) == nil else {
                throw OperationError.invalid(field: key, "appears more than once")
            }
        }
    }

    private func isNull(_ member: JSONScanner.Member) -> Bool {
        member.value.count == 4 && bytes[member.value].elementsEqual("null".utf8)
    }

    /// A string member; nil when absent or null and not `required`.
    func string(_ key: String, required: Bool = false) throws(OperationError) -> String? {
        guard let member = members[key], !isNull(member) else {
            if required { throw OperationError.invalid(field: key, members[key] == nil ? "is required" : "must not be null") }
            return nil
        }
        guard member.isString, let value = JSONPeek.unescape(bytes[(member.value.lowerBound + 1)..<(member.value.upperBound - 1)]) else {
            throw OperationError.invalid(field: key, "must be a string")
        }
        return value
    }

    /// An RFC 3339 date-time member.
    func date(_ key: String, required: Bool = false) throws(OperationError) -> Date? {
        guard let text = try string(key, required: required) else { return nil }
        guard let date = RFC3339.date(from: text) else { throw OperationError.invalid(field: key, "not an RFC 3339 date-time") }
        return date
    }

    /// The raw JSON of a member; `invalid` naming it when absent.
    func raw(_ key: String) throws(OperationError) -> ArraySlice<UInt8> {
        guard let member = members[key] else { throw OperationError.invalid(field: key, "is required") }
        return bytes[member.value]
    }
}
