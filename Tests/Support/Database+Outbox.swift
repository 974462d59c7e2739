import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

extension Database {
    /// The data of the requests of `type` a service put in its outbox, oldest first: what it asked
    /// another service to do; `undelivered`: only those the relay has not delivered (a delivered
    /// row keeps no payload).
    public func sentRequests(_ type: String, undelivered: Bool = false) async throws -> [JSONValue] {
        try await transaction { connection in
            try await connection.query(
                "SELECT data FROM outbox WHERE type = \(type) AND (NOT \(undelivered) OR delivered_at IS NULL) ORDER BY created_at, id", logger: logger)
                .decode(Data.self).reduce(into: [JSONValue]()) { $0.append(try JSONValue.parse(Array($1))) }
        }
    }
}
