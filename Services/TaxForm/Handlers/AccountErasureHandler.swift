import Bus
import Envelope
import Foundation
import PostgresSupport
import TaxFormContract

/// `tax-form.account.erase.v1`: when auth deletes an account, its interviews, their history and PDFs,
/// the record of its mailings and fills, and its data key go, and their deadline reminders stop.
/// Repeats find nothing left and succeed.
struct AccountErasureHandler: Sendable {
    let database: Database
    let store: InterviewStore
    let returns: ReturnStore
    let reminders: Reminders
    let now: @Sendable () -> Date

    @Sendable
    func erase(_ request: TaxForm.Account.Erase.Request, _ context: RequestContext) async throws -> TaxForm.Account.Erase.Response {
        guard let account = UUID(uuidString: request.account) else { throw OperationError.invalid(field: "data.account", "must be an account id") }
        return try await database.transaction { connection in
            try await returns.erase(account: account, on: connection)
            let years = try await store.erase(account: account, on: connection)
            for year in years { try await reminders.cancel(account: account, year: year, now: now(), on: connection) }
            return .init(interviewsDeleted: years.count)
        }
    }
}
