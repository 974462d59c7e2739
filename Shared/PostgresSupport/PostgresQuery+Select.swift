import PostgresNIO

extension PostgresQuery {
    /// `SELECT <columns> FROM <tables> WHERE <condition>`, the condition's values bound: one query
    /// shape for a store's reads that differ only in which rows they want.
    public static func select(_ columnsAndTables: String, where condition: PostgresQuery) -> PostgresQuery {
        var query = PostgresQuery(unsafeSQL: "SELECT \(columnsAndTables) WHERE ")
        query.sql += condition.sql
        query.binds = condition.binds
        return query
    }
}
