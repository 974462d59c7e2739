import PostgresNIO

/// A statement PostgreSQL parses and plans once per connection (PostgresNIO prepares it under
/// `name` on first use), whose rows the caller reads itself. Worth it for the hot queries whose
/// planning costs more than running them, such as a join looked up by key on every request.
///
/// Give each a short `name` of its own: PostgreSQL cuts names at 63 bytes, and two statements cut
/// to the same name would be one. PostgresNIO keeps a statement whose preparation failed on a
/// connection as failed on that connection, so run one where a failure before it in the same
/// transaction always ends the transaction (an error let out, not swallowed).
public protocol PreparedRows: PostgresPreparedStatement where Row == PostgresRow {}

extension PreparedRows {
    public func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresBindings {
    /// A prepared statement's $1, $2, ... in order.
    public static func values(_ values: any PostgresThrowingDynamicTypeEncodable...) throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { try bindings.append(value) }
        return bindings
    }
}
