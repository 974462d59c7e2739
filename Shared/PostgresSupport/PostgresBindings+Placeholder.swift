import PostgresNIO

extension PostgresBindings {
    /// Binds `value` after the binds so far and returns its placeholder (`$3`) for the query's text:
    /// for SQL put together from parts (filters that are there or not), where one interpolation
    /// cannot say it all.
    public mutating func placeholder<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> String {
        append(value)
        return "$\(count)"
    }

    /// The same for a value that may be absent (SQL NULL).
    public mutating func placeholder<Value: PostgresDynamicTypeEncodable>(_ value: Value?) -> String {
        if let value { append(value) } else { appendNull() }
        return "$\(count)"
    }
}
