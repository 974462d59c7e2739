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

    /// The caller's account, or `forbidden`. A caller in a session of the fundraising app is one of
    /// its members from their first request (their profile shows, with karma 0 until they give or
    /// are given to); `recording` (a change they make) also keeps their username as the token gives
    /// it now, so others see them by it. `fromAnyApp`: a route every app may use (the project's
    /// donations, one's own donations); a request from another app makes no one a member.
    func caller(_ context: RequestContext, recording: Bool = false, fromAnyApp: Bool = false, on connection: PostgresConnection) async throws -> UUID {
        let attributes = context.attributes
        let account = try attributes.signedInAccount(for: "the fundraising app's routes")
        let inApp = attributes.app == ClientApp.fundraising.rawValue
        guard fromAnyApp || inApp else { throw Self.notApp }
        if inApp {
            let username = attributes.username ?? "member"
            if recording {
                try await people.record(account, username: username, on: connection)
            } else {
                try await people.join(account, username: username, on: connection)
            }
        }
        return account
    }
}
