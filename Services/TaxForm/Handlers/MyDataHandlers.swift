import AuthContract
import Bus
import Contracts
import Envelope
import Foundation
import PostgresSupport
import TaxFormContract

/// `tax-form.data.*`: everything tax-form holds about the caller, unmasked, once auth confirms the
/// password; and the record of unmasked reads.
struct MyDataHandlers: Sendable {
    let database: Database
    let store: InterviewStore
    let returns: ReturnStore
    /// For auth's password check; nil where the service runs without a bus (contract tests).
    let bus: BusClient?
    let now: @Sendable () -> Date

    @Sendable
    func export(_ request: TaxForm.MyData.Export.Request, _ context: RequestContext) async throws -> TaxForm.MyData.Export.Response {
        let account = try InterviewHandlers.caller(context)
        guard let session = context.attributes.claim("sid") else { throw OperationError(.unauthenticated, "an export needs a signed-in session") }
        guard let bus else { throw OperationError(.unavailable, "auth cannot be reached from here to confirm the password") }
        // auth answers `invalid` naming data.password when it is not the account's, `rate_limited` after too many tries.
        _ = try await bus.call(Auth.Password.Confirm.self, .init(account: account.uuidString.lowercased(), session: session, password: request.password))
        let reads = ReadLog(database: database)
        return try await database.transaction { connection in
            try await reads.record(.export, account: account, year: nil, context: context, on: connection)
            var interviews: [TaxForm.MyData.ExportedInterview] = []
            for year in try await store.years(account: account, on: connection) {
                guard let row = try await store.find(account: account, year: year, on: connection) else { continue }
                let history = try await store.history(account: account, year: year, before: nil, limit: row.version + 1, on: connection)
                interviews.append(.init(
                    taxYear: year, version: row.version, answers: row.state.answers, skipped: row.state.skipped, filedAt: row.filedAt,
                    updatedAt: row.updatedAt, history: history))
            }
            let mails = try await returns.mailed(account: account, on: connection)
            let everyRead = try await reads.list(account: account, before: nil, limit: 100_000, on: connection)
            return .init(exportedAt: now(), interviews: interviews, mails: mails, reads: everyRead)
        }
    }

    @Sendable
    func reads(_ request: TaxForm.MyData.Reads.Request, _ context: RequestContext) async throws -> TaxForm.MyData.Reads.Response {
        let account = try InterviewHandlers.caller(context)
        let limit = try PageRequest(limit: request.limit).checked()
        let page = try await database.transaction { connection in
            try await ReadLog(database: database).list(account: account, before: request.after, limit: limit + 1, on: connection)
        }
        let shown = Array(page.prefix(limit))
        return .init(reads: shown, nextAfter: page.count > limit ? shown.last?.id : nil)
    }
}
