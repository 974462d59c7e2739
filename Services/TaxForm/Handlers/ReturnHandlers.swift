import Bus
import Contracts
import Envelope
import Foundation
import PdfEmailContract
import PostgresNIO
import PostgresSupport
import TaxFormContract

/// `tax-form.return.pdf.v1` and `tax-form.return.email.v1`: the caller's complete return as one PDF
/// (filled or laid out by pdf-email), downloaded or mailed. Both are limited per account, and
/// checked before any work: a fill costs about a quarter of a second of CPU.
struct ReturnHandlers: Sendable {
    let database: Database
    let store: InterviewStore
    let returns: ReturnStore
    let engine: InterviewEngine
    /// For pdf-email; nil where the service runs without a bus (contract tests).
    let bus: BusClient?
    /// How often an account can have its returns mailed in 24 hours, whatever their interviews.
    static let mailsPerDay = 5
    /// How many PDFs an account can have filled in an hour, for downloads and mails alike; a version
    /// already filled is served again (and mailed unencrypted) without a fill and is not counted.
    let fillsPerHour: Int

    @Sendable
    func pdf(_ request: TaxForm.Returns.Pdf.Request, _ context: RequestContext) async throws -> TaxForm.Returns.Pdf.Response {
        let account = try InterviewHandlers.caller(context), year = try engine.checkedYear(request.taxYear)
        let complete = try await completeReturn(account: account, year: year)
        let rules = complete.assessment.rulesVersion
        // The client has this version's PDF: say so without opening it.
        if request.ifNoneMatch != nil,
           let digest = try await returns.keptDigest(account: account, year: year, version: complete.version, rulesVersion: rules),
           HTTPBinding.FileReply.clientHas(Self.etag(digest), ifNoneMatch: request.ifNoneMatch) {
            return .init(pdf: Data(), fileName: Self.fileName(year), pages: 0, sha256: digest, forms: [], etag: Self.etag(digest))
        }
        let made: PdfEmail.Forms.Fill.Response
        if let kept = try await returns.cachedPDF(account: account, year: year, version: complete.version, rulesVersion: rules) {
            made = kept
        } else {
            made = try await countedFill(complete.documents, account: account, year: year, password: nil, context)
            try await returns.keep(made, account: account, year: year, version: complete.version, rulesVersion: rules)
        }
        // The PDF shows the full SSN or ITIN: its owner sees each download in GET /v1/tax/reads.
        try await database.transaction { connection in
            try await ReadLog(database: database).record(.pdf, account: account, year: year, context: context, on: connection)
        }
        return .init(
            pdf: made.pdf, fileName: Self.fileName(year), pages: made.pages, sha256: made.sha256, forms: made.forms.map { .init(form: $0.form, official: $0.official) },
            etag: Self.etag(made.sha256))
    }

    /// A PDF's entity tag: its SHA-256, quoted.
    static func etag(_ sha256: String) -> String { "\"\(sha256)\"" }

    /// A fill counted against the account's `fillsPerHour` (and taken back if it fails): `rate_limited`
    /// beyond it, before any work. Downloads and mails count alike, so requests sent at once cannot
    /// have more PDFs filled than the limit, whatever the mail limit says of them afterwards.
    private func countedFill(
        _ documents: ReturnDocuments, account: UUID, year: Int, password: String?, _ context: RequestContext
    ) async throws -> PdfEmail.Forms.Fill.Response {
        let (used, reservation) = try await returns.reserveFill(account: account, limit: fillsPerHour)
        guard let reservation else {
            throw OperationError(
                .rateLimited, "\(used.count) PDFs were filled for you in the last hour, the most an hour; a version already downloaded comes again at once",
                retryAfter: used.frees)
        }
        do {
            return try await fill(documents, year: year, password: password, context)
        } catch {
            try? await returns.releaseFill(reservation)
            throw error
        }
    }

    /// A return checked, filled and ready to mail.
    struct PreparedMail: Sendable {
        let account: UUID
        let year: Int
        let version: Int
        let email: String
        let name: String
        let due: String
        let forms: [String]
        let encrypted: Bool
        let made: PdfEmail.Forms.Fill.Response
    }

    @Sendable
    func prepareEmail(_ request: TaxForm.Returns.Email.Request, _ context: RequestContext) async throws -> PreparedMail {
        let account = try InterviewHandlers.caller(context)
        var validation = Validation()
        let year = engine.checkedYear(request.taxYear, &validation)
        switch (request.password, request.unencrypted) {
        case (_?, nil), (_?, false?), (nil, true?):
            // Its length is the schema's, checked before the handler.
            break
        case (_?, true?):
            validation.fail("data.unencrypted", "cannot be true with a password: the password encrypts the attachment")
        case (nil, _):
            validation.fail("data.password", "is needed to encrypt the attachment (or send unencrypted: true to attach it as it is)")
        }
        try validation.finish()
        // Before any work: at the limit, nothing is read, filled or encrypted.
        try checkMailLimit(try await database.transaction { try await returns.mails(account: account, on: $0) })
        let complete = try await completeReturn(account: account, year: year!)
        guard let email = complete.answers.text("email") else {
            throw OperationError(
                .conflict, "data.taxYear: the interview has no email address to mail the return to; answer the email question first",
                fields: [.init(field: "data.taxYear", message: "has no email address in its interview")])
        }
        // Unencrypted, the attachment is the download: the PDF kept for this version, if there is one.
        let kept = request.password == nil
            ? try await returns.cachedPDF(account: account, year: year!, version: complete.version, rulesVersion: complete.assessment.rulesVersion) : nil
        let made: PdfEmail.Forms.Fill.Response
        if let kept { made = kept } else { made = try await countedFill(complete.documents, account: account, year: year!, password: request.password, context) }
        return PreparedMail(
            account: account, year: year!, version: complete.version, email: email, name: complete.answers.text("name.first") ?? "there",
            due: complete.due, forms: complete.documents.forms.map(\.form).filter { $0 != ReturnDocuments.instructions.form },
            encrypted: request.password != nil, made: made)
    }

    /// `rate_limited` when the account had its returns mailed `mailsPerDay` times in 24 hours.
    private func checkMailLimit(_ used: ReturnStore.Usage) throws {
        guard used.count >= Self.mailsPerDay else { return }
        throw OperationError(
            .rateLimited, "your returns were mailed \(used.count) times in the last 24 hours, the most a day; try again later",
            retryAfter: used.frees)
    }

    /// In the transaction that records the reply: within the day's limit (counted again, one
    /// account's requests one after the other), the mail is queued through the outbox, and the
    /// sending recorded (no address, no content).
    @Sendable
    func email(_ prepared: PreparedMail, _ context: RequestContext, on connection: PostgresConnection) async throws -> TaxForm.Returns.Email.Response {
        try await returns.lock(account: prepared.account, on: connection)
        // An erasure may have come in while the PDF was filled: nothing of the account is mailed after it.
        guard try await returns.interviewExists(account: prepared.account, year: prepared.year, on: connection) else {
            throw InterviewHandlers.noInterview(prepared.year)
        }
        let used = try await returns.mails(account: prepared.account, on: connection)
        try checkMailLimit(used)
        try await returns.recordMail(
            account: prepared.account, year: prepared.year, version: prepared.version, sha256: prepared.made.sha256, encrypted: prepared.encrypted, on: connection)
        try await ReadLog(database: database).record(.mail, account: prepared.account, year: prepared.year, context: context, on: connection)
        let protection = prepared.encrypted
            ? "The PDF is encrypted: it opens with the password you chose in the app (Melon keeps no copy of it)."
            : "As you asked, the PDF is not encrypted: it shows your full identifying number, so keep this mail safe."
        try await database.enqueue(PdfEmail.Mail.Send.self, .init(
            to: [prepared.email],
            template: .init(name: "tax-form-ready", variables: [
                "name": prepared.name, "taxYear": "\(prepared.year)", "forms": prepared.forms.joined(separator: ", "), "deadline": prepared.due,
                "protection": protection,
            ]),
            attachments: [.init(name: Self.fileName(prepared.year), mediaType: "application/pdf", content: prepared.made.pdf)],
            account: prepared.account.uuidString.lowercased()), on: connection, account: prepared.account)
        context.logger.info("return mailed", metadata: ["tax_year": "\(prepared.year)", "encrypted": "\(prepared.encrypted)", "sha256": "\(prepared.made.sha256)"])
        return .init(
            to: Self.masked(prepared.email), encrypted: prepared.encrypted, sha256: prepared.made.sha256, status: "queued",
            remaining: Self.mailsPerDay - used.count - 1)
    }

    static func fileName(_ year: Int) -> String { "melon-tax-return-\(year).pdf" }

    /// `mei@tcd.ie` as `m***@tcd.ie`.
    static func masked(_ email: String) -> String {
        guard let at = email.firstIndex(of: "@") else { return "***" }
        return "\(email.prefix(1))***\(email[at...])"
    }

    struct CompleteReturn {
        let version: Int
        let due: String
        let answers: TaxForm.Answers
        let assessment: TaxForm.Assessment
        let documents: ReturnDocuments
    }

    /// The caller's interview for `year` when its return is ready (decided, nothing stopping it, every
    /// question answered or skipped); otherwise `not_found` (no interview) or `conflict` naming the
    /// open questions or what stops it.
    private func completeReturn(account: UUID, year: Int) async throws -> CompleteReturn {
        let row = try await database.transaction { connection in try await store.find(account: account, year: year, on: connection) }
        guard let row else { throw InterviewHandlers.noInterview(year) }
        let assessment = engine.assess(row.state.answers, skipped: Set(row.state.skipped), year: year)
        if let stop = assessment.stop {
            throw OperationError(.conflict, "data.taxYear: this return is not one Melon prepares: \(stop.reason)",
                                 fields: [.init(field: "data.taxYear", message: "stops: \(stop.reason)")])
        }
        // Ready once every question is answered or skipped: a skipped one leaves its field empty, as
        // `missing` says; an unanswered one is still to come.
        let unanswered = assessment.missing.filter { !$0.skipped }
        guard unanswered.isEmpty, let decision = assessment.decision, !decision.forms.isEmpty else {
            let missing = unanswered.map(\.question)
            throw OperationError(
                .conflict, "data.taxYear: the return is not ready yet; \(missing.count) question(s) are still to answer or skip: \(missing.prefix(10).joined(separator: ", "))",
                fields: [.init(field: "data.taxYear", message: "has open questions: \(missing.prefix(10).joined(separator: ", "))")])
        }
        let visas = Dictionary((engine.script.questions.first { $0.id == "visa" }?.choices ?? []).map { ($0.value, $0.label) }) { first, _ in first }
        let answers = row.state.answers, rules = engine.rules.years[year]!
        let due = DeadlinePlan.plan(assessment, answers: answers, rules: rules)?.due ?? rules.deadlines.due(.wages, taxYear: year)
        let claimed = answers.bool("treaty.claim") == true ? answers.text("treaty.country").flatMap(rules.treaty) : nil
        return CompleteReturn(
            version: row.version, due: due, answers: answers, assessment: assessment,
            documents: ReturnDocuments(
                assessment: assessment, answers: answers, year: year, visas: visas, due: due, treaty: claimed, countryNames: engine.countryNames))
    }

    private func fill(_ documents: ReturnDocuments, year: Int, password: String?, _ context: RequestContext) async throws -> PdfEmail.Forms.Fill.Response {
        guard let bus else { throw OperationError(.unavailable, "pdf-email cannot be reached from here") }
        let options = context.onwards(timeout: .seconds(20))
        let result: Result<PdfEmail.Forms.Fill.Response, OperationError>
        do {
            result = .success(try await bus.call(PdfEmail.Forms.Fill.self, .init(taxYear: year, forms: documents.forms, password: password), options: options))
        } catch {
            result = .failure(error)
        }
        // A refusal means the forms were composed wrong here, not that the caller sent anything wrong.
        if case .failure(let error) = result, error.code == .invalid {
            context.logger.error("pdf-email refused the return's forms", metadata: ["error": "\(error.message)"])
            throw OperationError(.internal, "the return's forms could not be filled")
        }
        return try result.get()
    }
}
