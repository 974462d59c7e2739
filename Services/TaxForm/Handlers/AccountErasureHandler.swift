import Bus
import Envelope
import Foundation
import PostgresSupport
import TaxFormContract

/// `tax-form.account.erase.v1`: when auth deletes an account, its interviews, their history and its
/// data key go. Repeats find nothing left and succeed.
struct AccountErasureHandler: Sendable {
    let database: Database
    let store: InterviewStore

    @Sendable
    func erase(_ request: TaxForm.Account.Erase.Request, _ context: RequestContext) async throws -> TaxForm.Account.Erase.Response {
        guard let account = UUID(uuidString: request.account) else { throw OperationError.invalid(field: "data.account", "must be an account id") }
        return try await database.transaction { connection in .init(interviewsDeleted: try await store.erase(account: account, on: connection)) }
    }
}
