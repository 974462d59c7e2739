import PdfEmailContract
import Contracts
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// Outgoing mail in the `mails` table of the service's schema.
public struct MailPostgresRepository: MailRepository {
    public let database: Database
    private let codec = EnvelopeCodec()

    /// The channel a queued mail is announced on at commit, waking the delivery loop.
    public static let queuedChannel = "mails"

    public init(database: Database) {
        self.database = database
    }

    public func insert(_ mail: QueuedMail, on connection: PostgresConnection) async throws {
        if let account = mail.account,
           try await connection.query("SELECT 1 FROM erased_accounts WHERE account_id = \(account)", logger: database.logger).collect().isEmpty == false {
            throw OperationError(.gone, "the account this mail is for was deleted: it is not sent")
        }
        try await connection.query(
            """
            INSERT INTO mails (id, sender, recipients, message, template, requested_by, request_id, reply_to, account_id, created_at, next_attempt_at)
            VALUES (\(mail.id), \(mail.sender), \(mail.recipients), \(Data(mail.message)), \(mail.template), \(mail.requestedBy), \(mail.requestID),
                    \(mail.replyTo?.lowercased()), \(mail.account), \(database.now()), \(database.now()))
            """,
            logger: database.logger)
        try await database.notify(Self.queuedChannel, on: connection)
    }

    public func status(id: UUID) async throws -> PdfEmail.Mail.Status.Response? {
        try await database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT id::text, status, attempts, created_at, next_attempt_at, sent_at, failed_at, reply
                FROM mails WHERE id = \(id)
                """,
                logger: database.logger)
            for try await (id, status, attempts, created, next, sent, failed, reply) in rows.decode(
                (String, String, Int, Date, Date, Date?, Date?, String?).self)
            {
                let status = PdfEmail.Mail.DeliveryStatus(rawValue: status) ?? .queued
                return PdfEmail.Mail.Status.Response(
                    id: id, status: status, attempts: attempts, createdAt: created, nextAttemptAt: status == .queued ? next : nil,
                    sentAt: sent, failedAt: failed, reply: reply)
            }
            return nil
        }
    }

    public func erase(account: UUID, address: String) async throws -> PdfEmail.Account.Erase.Response {
        let address = address.lowercased()
        return try await database.transaction { connection in
            _ = try await connection.query(
                "INSERT INTO erased_accounts (account_id, erased_at) VALUES (\(account), \(database.now())) ON CONFLICT (account_id) DO NOTHING", logger: database.logger)
            let rows = try await connection.query(
                """
                WITH deleted AS (
                    DELETE FROM mails
                    WHERE account_id = \(account)
                       OR (SELECT bool_and(lower(r) = \(address)) FROM unnest(recipients) r)
                       OR status = 'queued' AND reply_to = \(address) AND \(address) <> ALL(SELECT lower(r) FROM unnest(recipients) r)
                    RETURNING 1),
                anonymised AS (
                    UPDATE mails SET message = ''::bytea, reply_to = NULL, reply = NULL,
                        recipients = ARRAY(SELECT CASE WHEN lower(r) = \(address) THEN 'erased@invalid' ELSE r END FROM unnest(recipients) r)
                    WHERE status <> 'queued' AND (\(address) = ANY(SELECT lower(r) FROM unnest(recipients) r) OR reply_to = \(address))
                      AND NOT (SELECT bool_and(lower(r) = \(address)) FROM unnest(recipients) r) AND account_id IS DISTINCT FROM \(account)
                    RETURNING 1)
                SELECT (SELECT count(*) FROM deleted)::int, (SELECT count(*) FROM anonymised)::int
                """,
                logger: database.logger)
            for try await (deleted, anonymised) in rows.decode((Int, Int).self) {
                return PdfEmail.Account.Erase.Response(mailsDeleted: deleted, mailsAnonymised: anonymised)
            }
            return PdfEmail.Account.Erase.Response(mailsDeleted: 0, mailsAnonymised: 0)
        }
    }

    public func prune(finishedBefore age: Duration, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            WITH gone AS (
                DELETE FROM mails WHERE status <> 'queued' AND coalesce(sent_at, failed_at) < \(database.ago(age))
                RETURNING 1),
            forgotten AS (DELETE FROM erased_accounts WHERE erased_at < \(database.ago(.seconds(30 * 86_400))) RETURNING 1)
            SELECT ((SELECT count(*) FROM gone) + (SELECT count(*) FROM forgotten))::int
            """,
            logger: database.logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    public func claimDue(limit: Int, lease: Duration) async throws -> [ClaimedMail] {
        let queue = LeasedQueue(table: "mails", pending: "status = 'queued'", lease: lease, batchSize: limit)
        return try await queue.claim(
            "id, sender, recipients, message, attempts, created_at", in: database
        ).map { row in
            let (id, sender, recipients, message, attempts, created) = try row.decode((UUID, String, [String], Data, Int, Date).self)
            return ClaimedMail(
                id: id, sender: sender, recipients: recipients, message: [UInt8](message), attempts: attempts,
                age: .milliseconds(Int64(database.now().timeIntervalSince(created) * 1000)))
        }
    }

    @discardableResult
    public func record(_ outcome: DeliveryOutcome, of mail: ClaimedMail) async throws -> Bool {
        let (status, reply, delay): (String, String?, Duration) =
            switch outcome {
            case .sent: ("sent", nil, .zero)
            case .failed(let reply): ("failed", reply, .zero)
            case .retry(let delay, let reply): ("queued", reply, delay)
            }
        return try await database.transaction { connection in
            // The update names the attempt it records: a consumer whose lease ran out changes nothing.
            let rows = try await connection.query(
                """
                UPDATE mails SET status = \(status), reply = \(reply),
                    message = CASE WHEN \(status) = 'queued' THEN message ELSE ''::bytea END,
                    next_attempt_at = \(database.later(delay)),
                    sent_at = CASE WHEN \(status) = 'sent' THEN \(database.now()) END,
                    failed_at = CASE WHEN \(status) = 'failed' THEN \(database.now()) END
                WHERE id = \(mail.id) AND attempts = \(mail.attempts) AND status = 'queued' RETURNING 1
                """,
                logger: database.logger)
            return try await rows.collect().count == 1
        }
    }

    public func backlog() async throws -> Backlog {
        try await database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT count(*), (extract(epoch FROM \(database.now()) - min(created_at)) * 1000)::bigint
                FROM mails WHERE status = 'queued'
                """,
                logger: database.logger)
            for try await (count, oldest) in rows.decode((Int, Int64?).self) {
                return Backlog(queued: count, oldestAge: oldest.map { .milliseconds($0) })
            }
            return Backlog(queued: 0, oldestAge: nil)
        }
    }
}
