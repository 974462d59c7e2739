import Envelope
import Foundation
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

extension MarketplaceStackTests {
/// Issue 59: the reply kept for an Idempotency-Key's repeat copies what the change made (the
/// question's text), and it sat in `idempotency_records` in plain text for a day, with the key.
/// A journey's texts are found nowhere in the kit's tables, while a repeat still gets its reply.
@Suite(.timeLimit(.minutes(3))) struct StoredReplyTests {
    let traders = Traders()

    /// How many rows of the kit's tables hold `text` (or the key `key`) in the clear.
    static func rowsHolding(_ text: String, key: String, in database: Database) async throws -> Int {
        try await database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT (SELECT count(*)::int FROM idempotency_records
                        WHERE position(convert_to(\(text), 'UTF8') IN coalesce(reply, ''::bytea)) > 0 OR key = \(key))
                     + (SELECT count(*)::int FROM outbox WHERE position(convert_to(\(text), 'UTF8') IN data) > 0)
                """,
                logger: database.logger)
            return try await rows.decode(Int.self).reduce(0, +)
        }
    }

    @Test func aQuestionsTextIsNotKeptInTheClearWithItsReply() async throws {
        try await InProcessStack.with([.marketplaceChat]) { http in
            let database = try #require(http.databases["marketplace-chat"])
            let (aoife, brian, _) = try await traders.headers(http)
            let desk = try await Traders.list(http, aoife, title: "Desk", price: 4000, category: "furniture")
            let question = "Is the desk free on Friday? Ring 087 555 \(Int.random(in: 1000...9999))"
            let key = UUID().uuidString
            let ask = { @Sendable in
                try await http.post("/v1/marketplace/listings/\(desk)/ask", json: #"{"text":"\#(question)"}"#,
                                    headers: brian.merging(["Idempotency-Key": key]) { $1 })
            }
            let asked = try await ask()
            #expect(asked.status == 201 && asked.json?["lastMessage"]?["text"] == .string(question), "\(asked.text)")
            let conversation = try #require(Traders.string(asked, "id"))
            let answer = "Yes, after six \(UUID().uuidString.prefix(8))"
            let answerKey = UUID().uuidString
            let sent = try await http.post("/v1/conversations/\(conversation)/messages", json: #"{"text":"\#(answer)"}"#,
                                           headers: aoife.merging(["Idempotency-Key": answerKey]) { $1 })
            #expect(sent.status == 201, "\(sent.text)")

            #expect(try await Self.rowsHolding(question, key: key, in: database) == 0, "the question or its key in the clear")
            #expect(try await Self.rowsHolding(answer, key: answerKey, in: database) == 0, "the answer or its key in the clear")
            // The repeat still gets the first reply, opened with the key it brings: the same conversation, once.
            let again = try await ask()
            #expect(again.status == 201 && again.json == asked.json, "\(again.text)")
            let messages = Traders.items(try await http.get("/v1/conversations/\(conversation)/messages", headers: aoife), "messages")
            #expect(messages.count == 2, "\(messages)")
        }
    }
}
}
