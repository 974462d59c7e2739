import Bus
import RefundCalculatorContract
import Contracts
import Envelope
import Foundation
import PostgresSupport

/// `refund-calculator.account.erase.v1`: when auth deletes an account, its saved scenarios and the
/// contact requests from its address go (contact requests need no account). Repeats find nothing left and succeed.
struct AccountErasureHandler: Sendable {
    let database: Database
    let scenarios: ScenarioPostgresRepository
    let contacts: ContactRequestPostgresRepository

    @Sendable
    func erase(_ request: RefundCalculator.Account.Erase.Request, _ context: RequestContext) async throws -> RefundCalculator.Account.Erase.Response {
        var validation = Validation()
        let account = UUID(uuidString: request.account)
        validation.check(account != nil, "data.account", "must be an account id")
        let email = EmailAddress.normalized(request.email)
        if let problem = EmailAddress.problem(email) { validation.fail("data.email", problem) }
        try validation.finish()
        return try await database.transaction { connection in
            // The address's count of contact requests goes too (the kit forgets the account's).
            try await database.forgetRateLimits(ContactHandlers.emailKey(email), on: connection)
            return .init(scenariosDeleted: try await scenarios.deleteAll(account: account!, on: connection),
                         contactRequestsDeleted: try await contacts.deleteAll(email: email, on: connection))
        }
    }
}
