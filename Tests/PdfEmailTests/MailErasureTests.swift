import Contracts
import Envelope
import Foundation
import PdfEmailService
import PostgresNIO
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

/// A deleted account's mail: removed when it went to that address alone, anonymised when it went to
/// others too (or named it as Reply-To) and is finished, left alone while it still has to reach the
/// others. Finished mail goes after the retention.
@Suite(.timeLimit(.minutes(2))) struct MailErasureTests {
    let ana = UUID()

    func mail(_ recipients: [String], replyTo: String? = nil, account: UUID? = nil) -> QueuedMail {
        QueuedMail(
            id: UUID(), sender: "no-reply@melon.example", recipients: recipients, message: Array("Subject: hi\r\n\r\nyour code\r\n".utf8),
            template: nil, requestedBy: "urn:melon:test", requestID: UUID().uuidString, replyTo: replyTo, account: account)
    }

    func query(_ database: Database, _ sql: PostgresQuery) async throws {
        try await database.transaction { connection in try await connection.query(sql, logger: database.logger) }
    }

    /// What is left of each mail: its recipients, message length and Reply-To.
    func rows(_ database: Database) async throws -> [UUID: ([String], Int, String?)] {
        try await database.transaction { connection in
            try await connection.query("SELECT id, recipients, octet_length(message), reply_to FROM mails", logger: database.logger)
                .decode((UUID, [String], Int, String?).self).reduce(into: [UUID: ([String], Int, String?)]()) { $0[$1.0] = ($1.1, $1.2, $1.3) }
        }
    }

    @Test func eraseDeletesSoleMailAnonymisesSharedFinishedMailAndKeepsTheRest() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(ServiceDefinition.pdfEmail.migrations())
            let repository = MailPostgresRepository(database: database)
            let alone = mail(["Ana@TCD.ie"]), sharedSent = mail(["ana@tcd.ie", "refunds@redoak.example"])
            let sharedQueued = mail(["ana@tcd.ie", "refunds@redoak.example"]), someoneElse = mail(["liam@ucd.ie"])
            for queued in [alone, sharedSent, sharedQueued, someoneElse] {
                try await database.transaction { try await repository.insert(queued, on: $0) }
            }
            try await database.transaction { connection in
                try await connection.query("UPDATE mails SET status = 'sent', sent_at = now() WHERE id = \(sharedSent.id)", logger: database.logger)
            }

            let erased = try await repository.erase(account: ana, address: "ana@tcd.ie")
            #expect(erased == .init(mailsDeleted: 1, mailsAnonymised: 1))
            let rows = try await database.transaction { connection in
                try await connection.query("SELECT id, recipients, octet_length(message) FROM mails", logger: database.logger)
                    .decode((UUID, [String], Int).self).reduce(into: [UUID: ([String], Int)]()) { $0[$1.0] = ($1.1, $1.2) }
            }
            #expect(rows[alone.id] == nil)
            #expect(rows[sharedSent.id]?.0 == ["erased@invalid", "refunds@redoak.example"] && rows[sharedSent.id]?.1 == 0)
            #expect(rows[sharedQueued.id]?.0 == sharedQueued.recipients, "still to be delivered to the others")
            #expect(rows[someoneElse.id]?.1 == someoneElse.message.count)
            #expect(try await repository.erase(account: ana, address: "ana@tcd.ie") == .init(mailsDeleted: 0, mailsAnonymised: 0), "a repeat changes nothing")
        }
    }

    /// A contact request mailed to the refund company names the user as Reply-To: their address and
    /// what they wrote go with their account, though the mail went to someone else.
    @Test func eraseReachesMailThatNamesTheAddressAsReplyTo() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(ServiceDefinition.pdfEmail.migrations())
            let repository = MailPostgresRepository(database: database)
            let sent = mail(["refunds@redoak.example"], replyTo: "Ana@TCD.ie"), queued = mail(["refunds@redoak.example"], replyTo: "ana@tcd.ie")
            let other = mail(["refunds@redoak.example"], replyTo: "liam@ucd.ie")
            for each in [sent, queued, other] { try await database.transaction { try await repository.insert(each, on: $0) } }
            try await query(database, "UPDATE mails SET status = 'sent', sent_at = now(), reply = '250 OK <ana@tcd.ie> queued' WHERE id = \(sent.id) OR id = \(other.id)")

            #expect(try await repository.erase(account: ana, address: "ana@tcd.ie") == .init(mailsDeleted: 1, mailsAnonymised: 1))
            let replies = try await database.transaction { connection in
                try await connection.query("SELECT id, reply FROM mails", logger: database.logger).decode((UUID, String?).self)
                    .reduce(into: [UUID: String?]()) { $0[$1.0] = $1.1 }
            }
            #expect(replies[sent.id] == .some(nil), "the server's reply may name the address: it goes too")
            let left = try await rows(database)
            #expect(left[queued.id] == nil, "not yet sent: it goes")
            #expect(left[sent.id]?.1 == 0 && left[sent.id]?.2 == nil, "sent: the message and the Reply-To are emptied")
            #expect(left[other.id]?.1 == other.message.count && left[other.id]?.2 == "liam@ucd.ie")
        }
    }

    /// A return goes to the address its interview gave, not the account's: the mail an account was
    /// sent for goes with the account, sent or not, whatever address it went to.
    @Test func eraseReachesMailSentForTheAccountToAnotherAddress() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(ServiceDefinition.pdfEmail.migrations())
            let repository = MailPostgresRepository(database: database)
            let queued = mail(["mei.tax@gmail.example"], account: ana), sent = mail(["mei.tax@gmail.example"], account: ana)
            let someoneElses = mail(["mei.tax@gmail.example"], account: UUID())
            for each in [queued, sent, someoneElses] { try await database.transaction { try await repository.insert(each, on: $0) } }
            try await query(database, "UPDATE mails SET status = 'sent', sent_at = now() WHERE id = \(sent.id)")

            #expect(try await repository.erase(account: ana, address: "ana@tcd.ie") == .init(mailsDeleted: 2, mailsAnonymised: 0))
            let left = try await rows(database)
            #expect(left[queued.id] == nil && left[sent.id] == nil)
            #expect(left[someoneElses.id] != nil)
            // A mail for the account that arrives after its erasure (an outbox that delivered late) is refused.
            await #expect(throws: OperationError.self) {
                try await database.transaction { try await repository.insert(mail(["mei.tax@gmail.example"], account: ana), on: $0) }
            }
            #expect(try await rows(database).count == 1)
        }
    }

    /// Once delivered (or given up), a mail keeps its envelope and outcome, never its message: a
    /// return mailed unencrypted is not kept, SSN and all, for the retention.
    @Test func aFinishedMailKeepsItsEnvelopeAndOutcomeButNotItsMessage() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(ServiceDefinition.pdfEmail.migrations())
            let repository = MailPostgresRepository(database: database)
            let first = mail(["a@tcd.ie"]), second = mail(["b@tcd.ie"]), third = mail(["c@tcd.ie"])
            for each in [first, second, third] { try await database.transaction { try await repository.insert(each, on: $0) } }
            let claimed = try await repository.claimDue(limit: 3, lease: .seconds(60))
            let outcomes: [UUID: DeliveryOutcome] = [first.id: .sent, second.id: .failed(reply: "550 no such user"), third.id: .retry(after: .seconds(5), reply: "451 later")]
            for each in claimed { #expect(try await repository.record(outcomes[each.id]!, of: each)) }
            let left = try await rows(database)
            #expect(left[first.id]?.0 == ["a@tcd.ie"] && left[first.id]?.1 == 0, "sent: its envelope stays, its message goes")
            #expect(left[second.id]?.1 == 0, "failed: its message goes too")
            #expect(left[third.id]?.1 == third.message.count, "to be tried again: it keeps its message")
            let sent = try #require(try await repository.status(id: first.id))
            #expect(sent.status == .sent && sent.sentAt != nil)
        }
    }

    @Test func finishedMailIsDeletedAfterTheRetentionAndQueuedMailStays() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(ServiceDefinition.pdfEmail.migrations())
            let repository = MailPostgresRepository(database: database)
            let oldSent = mail(["a@tcd.ie"]), oldFailed = mail(["b@tcd.ie"]), recentSent = mail(["c@tcd.ie"]), oldQueued = mail(["d@tcd.ie"])
            for each in [oldSent, oldFailed, recentSent, oldQueued] { try await database.transaction { try await repository.insert(each, on: $0) } }
            try await query(database, "UPDATE mails SET status = 'sent', sent_at = now() - interval '31 days' WHERE id = \(oldSent.id)")
            try await query(database, "UPDATE mails SET status = 'failed', failed_at = now() - interval '31 days' WHERE id = \(oldFailed.id)")
            try await query(database, "UPDATE mails SET status = 'sent', sent_at = now() - interval '29 days' WHERE id = \(recentSent.id)")
            try await query(database, "UPDATE mails SET created_at = now() - interval '40 days' WHERE id = \(oldQueued.id)")

            let pruned = try await database.transaction { try await repository.prune(finishedBefore: .seconds(30 * 86_400), on: $0) }
            #expect(pruned == 2)
            #expect(Set(try await rows(database).keys) == [recentSent.id, oldQueued.id])
        }
    }

    /// Mail stored before the Reply-To column has its address read from the message's header, and
    /// from the header alone: a Reply-To line a user wrote in the body is not one.
    @Test func theMigrationReadsReplyToFromTheHeadersOfMailStoredBefore() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            let migrations = try ServiceDefinition.pdfEmail.migrations()
            try await database.migrate(Array(migrations.prefix(1)))
            let named = UUID(), bare = UUID(), inBody = UUID(), none = UUID()
            let messages = [
                named: "From: Melon <no-reply@melon.example>\r\nTo: refunds@redoak.example\r\nReply-To: Sean O'Brien <Sean.O'Brien@Example.ie>\r\nSubject: hi\r\n\r\nx\r\n",
                bare: "To: refunds@redoak.example\r\nreply-to: aoife@example.ie\r\nSubject: hi\r\n\r\nx\r\n",
                inBody: "To: refunds@redoak.example\r\nSubject: hi\r\n\r\nReply-To: someone@else.example\r\n",
                none: "Subject: hi\r\n\r\nx\r\n",
            ]
            for (id, text) in messages {
                try await query(database, """
                    INSERT INTO mails (id, sender, recipients, message, requested_by, request_id)
                    VALUES (\(id), 'no-reply@melon.example', ARRAY['refunds@redoak.example'], \(Data(text.utf8)), 'urn:melon:test', 'r')
                    """)
            }
            try await database.migrate(migrations)
            let left = try await rows(database)
            #expect(left[named]?.2 == "sean.o'brien@example.ie" && left[bare]?.2 == "aoife@example.ie", "\(left)")
            #expect(left[inBody]?.2 == nil && left[none]?.2 == nil, "\(left)")
        }
    }
}
