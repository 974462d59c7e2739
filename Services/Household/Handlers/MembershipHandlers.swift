import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// `household.invites.*` and `household.members.*`: who may join, joining, leaving, removing a member
/// and handing the household over. Changes of one household's members happen one at a time (its
/// row is locked), so its limits and its one owner hold.
struct MembershipHandlers: Sendable {
    let database: Database
    let households: HouseholdStore
    let invites: InviteStore
    let access: HouseholdAccess
    let householdHandlers: HouseholdHandlers
    let configuration: HouseholdConfiguration

    @Sendable
    func prepareInvite(_ request: Household.Reference, _ context: RequestContext) async throws -> Household.Reference { request }

    /// In the transaction that records the reply: a new code, within the household's valid codes.
    @Sendable
    func invite(_ request: Household.Reference, _ context: RequestContext, on connection: PostgresConnection) async throws -> Household.Invite {
        let owner = try await access.owner(of: request.householdId, context, to: "invite people", on: connection)
        guard try await invites.valid(of: owner.household, on: connection).count < HouseholdConfiguration.validInvites else {
            throw OperationError(.conflict, "a household has at most \(HouseholdConfiguration.validInvites) valid invite codes; revoke one first")
        }
        return try await invites.create(for: owner.household, by: owner.member, lifetime: configuration.inviteLifetime, on: connection)
    }

    @Sendable
    func listInvites(_ request: Household.Reference, _ context: RequestContext) async throws -> Household.Invites.List.Response {
        try await database.transaction { connection in
            let owner = try await access.owner(of: request.householdId, context, to: "see its invite codes", on: connection)
            return .init(invites: try await invites.valid(of: owner.household, on: connection))
        }
    }

    @Sendable
    func revokeInvite(_ request: Household.Invites.Revoke.Request, _ context: RequestContext) async throws -> Household.Invites.Revoke.Response {
        try await database.transaction { connection in
            let owner = try await access.owner(of: request.householdId, context, to: "revoke invite codes", on: connection)
            guard try await invites.revoke(InviteStore.normalized(request.code), of: owner.household, on: connection) else {
                throw OperationError(.notFound, "data.code: the household has no valid invite code like this", fields: [.init(field: "data.code", message: "is not valid")])
            }
            return .init(revoked: true)
        }
    }

    /// Joins the household of a valid code. Each attempt is counted against the client network and
    /// the account before the code is looked up (attempts at once cannot all pass one check), and a
    /// right code takes its count back; past the free wrong ones, each waits longer.
    @Sendable
    func join(_ request: Household.Invites.Join.Request, _ context: RequestContext) async throws -> Household.View {
        let account = try HouseholdAccess.caller(context)
        let code = InviteStore.normalized(request.code)
        var counters = [BackoffKey(configuration.joinBackoff.account, .account(account.uuidString.lowercased()))]
        if let network = context.attributes.clientIP.flatMap(ClientNetwork.key) {
            counters.insert(BackoffKey(configuration.joinBackoff.network, .network(network)), at: 0)
        }
        _ = try await database.transaction { try await database.countFailure(counters, admitting: true, on: $0) }
        let notValid = OperationError(
            .notFound, "data.code: no household has this invite code; ask for a new one", fields: [.init(field: "data.code", message: "is not valid")])
        guard let household = try await database.transaction({ connection -> UUID? in
            guard let invite = try await invites.household(of: code, on: connection) else { return nil }
            try await database.lockBackoffs(counters, on: connection)
            try await database.succeeded(reset: [], forgive: counters, on: connection)
            return invite.household
        }) else { throw notValid }
        return try await database.transaction { connection in
            try await householdHandlers.lockAccount(account, on: connection)
            // With the household locked, the code is checked again: revoked, or the household gone
            // (its last member left), since it was looked up is as if it never was valid.
            guard try await households.lock(household, on: connection), let invite = try await invites.household(of: code, on: connection),
                  invite.household == household
            else { throw notValid }
            if let membership = try await households.membership(of: household, account: account, on: connection) {
                return try await households.view(membership, on: connection)
            }
            // Someone removed (or who left) comes back only with a code made since.
            if let left = try await households.leftAt(of: account, in: household, on: connection), left >= invite.createdAt { throw notValid }
            guard try await households.count(of: account, on: connection) < configuration.householdsPerAccount else {
                throw HouseholdHandlers.tooManyHouseholds(configuration.householdsPerAccount)
            }
            guard try await households.memberCount(of: household, on: connection) < configuration.maxMembers else {
                throw OperationError(.conflict, "the household is full: it has \(configuration.maxMembers) members")
            }
            return try await households.view(try await households.add(account, to: household, on: connection), on: connection)
        }
    }

    @Sendable
    func prepareLeave(_ request: Household.Reference, _ context: RequestContext) async throws -> Household.Reference { request }

    /// In the transaction that records the reply: the caller leaves, or with the last member the
    /// household goes. An owner with others in the household hands it over first.
    @Sendable
    func leave(_ request: Household.Reference, _ context: RequestContext, on connection: PostgresConnection) async throws -> Household.Members.Leave.Response {
        let membership = try await access.member(of: request.householdId, context, locking: true, on: connection)
        if membership.role == .owner {
            guard try await households.memberCount(of: membership.household, on: connection) == 1 else {
                throw OperationError(.conflict, "the owner hands the household to another member before leaving (POST .../members/{memberId}/ownership)")
            }
            try await households.delete(membership.household, on: connection)
            return .init(left: true, householdDeleted: true)
        }
        try await households.remove(membership.member, on: connection)
        return .init(left: true, householdDeleted: false)
    }

    @Sendable
    func remove(_ request: Household.Members.Reference, _ context: RequestContext) async throws -> Household.View {
        try await database.transaction { connection in
            let (owner, member) = try await ownerAndMember(request, context, to: "remove members", on: connection)
            guard member != owner.member else { throw OperationError(.conflict, "the owner leaves rather than removing themselves") }
            try await households.remove(member, on: connection)
            return try await households.view(owner, on: connection)
        }
    }

    @Sendable
    func transferOwnership(_ request: Household.Members.Reference, _ context: RequestContext) async throws -> Household.View {
        try await database.transaction { connection in
            let (owner, member) = try await ownerAndMember(request, context, to: "hand the household over", on: connection)
            guard member != owner.member else { throw OperationError(.conflict, "data.memberId: you own the household already") }
            try await households.transferOwnership(of: owner.household, to: member, on: connection)
            return try await households.view(.init(household: owner.household, member: owner.member, role: .member), on: connection)
        }
    }

    /// The owner's membership and the id of another member who belongs now, or `not_found` naming `memberId`.
    private func ownerAndMember(_ request: Household.Members.Reference, _ context: RequestContext, to action: String,
                                on connection: PostgresConnection) async throws -> (HouseholdStore.Membership, UUID) {
        let owner = try await access.owner(of: request.householdId, context, to: action, on: connection)
        guard let member = UUID(uuidString: request.memberId), try await households.currentRole(of: member, in: owner.household, on: connection) != nil
        else {
            throw OperationError(.notFound, "data.memberId: the household has no member with this id", fields: [.init(field: "data.memberId", message: "belongs to no member")])
        }
        return (owner, member)
    }
}
