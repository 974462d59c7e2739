import Bus
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO

/// Who may reach a household: its members. Anyone else, and any id that names no household, gets
/// the same `not_found`, so a stranger learns nothing of which households exist.
struct HouseholdAccess: Sendable {
    let households: HouseholdStore

    static let notFound = OperationError(
        .notFound, "data.householdId: you belong to no household with this id",
        fields: [.init(field: "data.householdId", message: "is not one of your households")])

    /// The account the gateway verified the token of.
    static func caller(_ context: RequestContext) throws(OperationError) -> UUID {
        try context.attributes.signedInAccount(for: "households")
    }

    /// The caller's membership of the household `id` names, or `not_found`.
    func member(of id: String, _ context: RequestContext, locking: Bool = false, on connection: PostgresConnection) async throws -> HouseholdStore.Membership {
        let account = try Self.caller(context)
        guard let household = UUID(uuidString: id),
              let membership = try await households.membership(of: household, account: account, locking: locking, on: connection)
        else { throw Self.notFound }
        return membership
    }

    /// The caller's membership when they own the household; `forbidden` for its other members.
    func owner(of id: String, _ context: RequestContext, to action: String, on connection: PostgresConnection) async throws -> HouseholdStore.Membership {
        let membership = try await member(of: id, context, locking: true, on: connection)
        guard membership.role == .owner else { throw OperationError(.forbidden, "only the household's owner may \(action)") }
        return membership
    }
}
