import Contracts
import Foundation
import PdfEmailService
import PostgresNIO
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

/// A deleted account's mail: removed when it went to that address alone, anonymised when it went to
/// others too and is finished, left alone while it still has to reach the others.
@Suite(.timeLimit(.minutes(2))) struct MailErasureTests {
    func mail(_ recipients: [String]) -> QueuedMail {
        QueuedMail(
            id: UUID(), sender: "no-reply@melon.example", recipients: recipients, message: Array("Subject: hi\r\n\r\nyour code\r\n".utf8),
            template: nil, requestedBy: "urn:melon:test", requestID: UUID().uuidString)
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

            let erased = try await repository.erase(address: "ana@tcd.ie")
            #expect(erased == .init(mailsDeleted: 1, mailsAnonymised: 1))
            let rows = try await database.transaction { connection in
                try await connection.query("SELECT id, recipients, octet_length(message) FROM mails", logger: database.logger)
                    .decode((UUID, [String], Int).self).reduce(into: [UUID: ([String], Int)]()) { $0[$1.0] = ($1.1, $1.2) }
            }
            #expect(rows[alone.id] == nil)
            #expect(rows[sharedSent.id]?.0 == ["erased@invalid", "refunds@redoak.example"] && rows[sharedSent.id]?.1 == 0)
            #expect(rows[sharedQueued.id]?.0 == sharedQueued.recipients, "still to be delivered to the others")
            #expect(rows[someoneElse.id]?.1 == someoneElse.message.count)
            #expect(try await repository.erase(address: "ana@tcd.ie") == .init(mailsDeleted: 0, mailsAnonymised: 0), "a repeat changes nothing")
        }
    }
}
