import Bus
import Contracts
import Envelope
import Foundation
import GatewayService
import PostgresNIO
import PostgresSupport

/// The `bench` service of the HTTP benchmark: a small write (a note stored once per idempotency key)
/// and a small read (a note by id), each one PostgreSQL round trip, and a ping that answers a note of
/// the same size without the database (the path's own cost). Not a product contract.
enum BenchNotes: ServiceContract {
    static let name = "bench"
    static let summary = "a note stored and read back (the HTTP benchmark's fixture)."
    static let apps = AppScope.everyApp
    static let operations: [any OperationDeclaration.Type] = [Put.self, Get.self, Ping.self]

    struct Note: Codable, Sendable { var id: Int64; var text: String }

    enum Put: OperationDeclaration {
        static let service = "bench"
        static let type = "bench.note.put.v1"
        static let http = [HTTPBinding(.post, "/v1/bench/notes", name: "benchNotePut", status: .created, summary: "Stores a note")]
        static let idempotency: Idempotency? = .stored()
        struct Request: Codable, Sendable { var text: String }
        typealias Response = Note
    }

    enum Get: OperationDeclaration {
        static let service = "bench"
        static let type = "bench.note.get.v1"
        static let http = [
            HTTPBinding(.get, "/v1/bench/notes/{id}", name: "benchNoteGet", summary: "Reads a note"),
            // The same read for signed-in callers only: the difference is the gateway's token check.
            HTTPBinding(.get, "/v1/bench/signed-in/notes/{id}", name: "benchNoteGetSignedIn", access: .signedIn, summary: "Reads a note, signed in"),
        ]
        struct Request: Codable, Sendable, FieldRules {
            var id: Int64
            static let fieldRules: [String: FieldRule] = ["id": FieldRule.minimum(1).described("The note")]
        }
        typealias Response = Note
    }

    /// The read's reply without the read: what HTTP, the gateway and the bus cost on their own.
    enum Ping: OperationDeclaration {
        static let service = "bench"
        static let type = "bench.ping.v1"
        static let http = [HTTPBinding(.get, "/v1/bench/ping", name: "benchPing", summary: "Answers a note without reading one")]
        typealias Request = Empty
        typealias Response = Note
        static let note = Note(id: 1, text: "seed")
    }

    static let migrations = [
        Migration(version: 1, name: "create_notes", sql: "CREATE TABLE notes (id bigserial PRIMARY KEY, text text NOT NULL)"),
    ]

    static func registry(_ database: Database) -> OperationRegistry {
        var registry = OperationRegistry(service: "bench")
        registry.register(Put.self, handler: put(database))
        registry.register(Get.self, handler: get(database))
        registry.register(Ping.self) { _, _ in Ping.note }
        return registry
    }

    static func put(_ database: Database) -> OperationRegistry.Handler<Put> {
        { request, context in
            let record = IdempotencyRecord(operation: Put.type, caller: "", key: context.attributes.idempotencyKey ?? context.attributes.id)
            let reply = try await database.transaction { connection in
                try await database.once(record, fingerprint: Array(request.text.utf8), on: connection) {
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
