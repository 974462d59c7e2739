import Bus
import Envelope
import Foundation
import GatewayService
import PostgresNIO
import PostgresSupport

/// The `bench` service of the HTTP benchmark: a small write (a note stored once per idempotency key)
/// and a small read (a note by id), each one PostgreSQL round trip. Not a product contract.
enum BenchNotes {
    struct Note: Codable, Sendable { var id: Int64; var text: String }

    enum Put: BusOperation {
        static let service = "bench"
        static let type = "bench.note.put.v1"
        struct Request: Codable, Sendable { var text: String }
        typealias Response = Note
    }

    enum Get: BusOperation {
        static let service = "bench"
        static let type = "bench.note.get.v1"
        struct Request: Codable, Sendable { var id: Int64 }
        typealias Response = Note
    }

    static let migrations = [
        Migration(version: 1, name: "create_notes", sql: "CREATE TABLE notes (id bigserial PRIMARY KEY, text text NOT NULL)"),
    ]

    static let routes: [BusRoute] = [
        BusRoute(.post, "/v1/bench/notes", to: Put.self, summary: "Stores a note",
                 requestBody: ["type": "object", "required": ["text"], "properties": ["text": ["type": "string"]]],
                 response: note, successStatus: .created),
        BusRoute(.get, "/v1/bench/notes/{id}", to: Get.self, summary: "Reads a note",
                 parameters: [.init("id", in: .path, .integer, description: "The note", range: 1...Int64.max)],
                 response: note),
        // The same read for signed-in callers only: the difference is the gateway's token check.
        BusRoute(.get, "/v1/bench/signed-in/notes/{id}", to: Get.self, summary: "Reads a note, signed in", access: .signedIn,
                 parameters: [.init("id", in: .path, .integer, description: "The note", range: 1...Int64.max)],
                 response: note),
    ]

    static let note: JSONValue = [
        "type": "object", "required": ["id", "text"],
        "properties": ["id": ["type": "integer"], "text": ["type": "string"]],
    ]

    static func registry(_ database: Database) -> OperationRegistry {
        var registry = OperationRegistry(service: "bench")
        registry.register(Put.self, handler: put(database))
        registry.register(Get.self, handler: get(database))
        return registry
    }

    static func put(_ database: Database) -> OperationRegistry.Handler<Put> {
        { request, context in
            let key = context.attributes.idempotencyKey ?? context.attributes.id
            let reply = try await database.transaction { connection in
                try await database.idempotent(key: key, request: Array(request.text.utf8), on: connection) {
                    let id = try await connection.query("INSERT INTO notes (text) VALUES (\(request.text)) RETURNING id", logger: database.logger)
                        .decode(Int64.self).reduce(0) { $1 }
                    return Array(try JSONEncoder().encode(Note(id: id, text: request.text)))
                }
            }
            return try JSONDecoder().decode(Note.self, from: Data(reply))
        }
    }

    static func get(_ database: Database) -> OperationRegistry.Handler<Get> {
        { request, _ in
            let rows = try await database.client.query("SELECT id, text FROM bench.notes WHERE id = \(request.id)", logger: database.logger)
            for try await (id, text) in rows.decode((Int64, String).self) { return Note(id: id, text: text) }
            throw OperationError(.notFound, "no note \(request.id)")
        }
    }
}
