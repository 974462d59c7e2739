/// The one rule for idempotency keys, at the gateway (`Idempotency-Key`) and in storage: 1 to 200
/// visible ASCII characters.
public enum IdempotencyKey {
    public static let length = 1...200

    /// Whether `key` may be used.
    public static func isValid(_ key: String) -> Bool {
        length.contains(key.utf8.count) && key.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// `key`, or `invalid` naming `field`.
    public static func checked(_ key: String, field: String) throws(OperationError) -> String {
        guard isValid(key) else {
            throw OperationError.invalid(field: field, "must be \(length.lowerBound) to \(length.upperBound) visible ASCII characters")
        }
        return key
    }
}
