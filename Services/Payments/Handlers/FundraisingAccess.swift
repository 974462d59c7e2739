import Bus
import Contracts
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO

/// Who may use the fundraising app's routes: a signed-in account in a session of the fundraising app.
struct FundraisingAccess: Sendable {
    let people: PeopleStore

    static let notApp = OperationError(.forbidden, "campaigns are used from the fundraising app")

    /// The caller's account, or `forbidden`. `recording` (a change they make) keeps their username
    /// as the token gives it, so others see them by it. `fromAnyApp`: a route every app may use
    /// (the project's donations, one's own donations).
    func caller(_ context: RequestContext, recording: Bool = false, fromAnyApp: Bool = false, on connection: PostgresConnection) async throws -> UUID {
        let attributes = context.attributes
        let account = try attributes.signedInAccount(for: "the fundraising app's routes")
        guard fromAnyApp || attributes.app == ClientApp.fundraising.rawValue else { throw Self.notApp }
        if recording { try await people.record(account, username: attributes.username ?? "member", on: connection) }
        return account
    }
}
