import Bus
import Contracts
import Envelope
import Foundation
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.people.get.v1`: someone's fundraising profile, for any member of the fundraising app
/// (anyone who made a request in it: `FundraisingAccess` records them, so a member asking about
/// themselves finds their profile, karma 0 at first). Someone who never used the app (or whose
/// account is gone) is answered as if they did not exist.
struct PeopleHandlers: Sendable {
    let database: Database
    let people: PeopleStore
    let campaigns: CampaignStore
    let access: FundraisingAccess

    /// Campaigns and activity shown on a profile.
    static let shown = 20

    static let notFound = OperationError(
        .notFound, "data.accountId: no such person in the fundraising app", fields: [.init(field: "data.accountId", message: "is no one here")])

    @Sendable
    func get(_ request: Payments.PersonReference, _ context: RequestContext) async throws -> Payments.Profile {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            guard let account = UUID(uuidString: request.accountId), let username = try await people.username(of: account, on: connection) else {
                throw Self.notFound
            }
            let open = try await campaigns.owned(by: account, viewer: caller, openOnly: true, before: nil, limit: Self.shown, on: connection)
            return Payments.Profile(
                person: .init(accountId: CampaignStore.text(account), username: username),
                karma: try await campaigns.ledger.karma(of: account, on: connection), campaigns: open.map(\.view),
                activity: try await people.activity(of: account, limit: Self.shown, on: connection))
        }
    }
}
