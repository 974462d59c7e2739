import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import Media
import PostgresNIO
import PostgresSupport

/// `household.households` and `household.members`: households and who belongs to them.
struct HouseholdStore: Sendable {
    let database: Database

    /// The caller's place in a household they belong to.
    struct Membership: Sendable, Equatable {
        let household: UUID
        let member: UUID
        let role: Household.Role
    }

    /// The caller's membership of `household`, nil when they do not belong to it (or it does not
    /// exist). With `locking`, the household's row is locked for the transaction first, so changes
    /// of its members happen one at a time.
    func membership(of household: UUID, account: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> Membership? {
        if locking { _ = try await lock(household, on: connection) }
        let rows = try await connection.query(
            "SELECT id, role FROM members WHERE household_id = \(household) AND account_id = \(account) AND left_at IS NULL",
            logger: database.logger)
        for try await (member, role) in rows.decode((UUID, String).self) {
            return Membership(household: household, member: member, role: Household.Role(rawValue: role) ?? .member)
        }
        return nil
    }

    /// Locks the household's row for the transaction, so changes of its members happen one at a
    /// time; false when there is no such household (any more).
    func lock(_ household: UUID, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query("SELECT 1 FROM households WHERE id = \(household) FOR UPDATE", logger: database.logger).collect().count == 1
    }

    /// When `account` last left (or was removed from) `household`; nil when it never belonged or belongs now.
    func leftAt(of account: UUID, in household: UUID, on connection: PostgresConnection) async throws -> Date? {
        let rows = try await connection.query(
            "SELECT left_at FROM members WHERE household_id = \(household) AND account_id = \(account) AND left_at IS NOT NULL", logger: database.logger)
        for try await left in rows.decode(Date.self) { return left }
        return nil
    }

    /// How many households `account` belongs to.
    func count(of account: UUID, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            "SELECT count(*)::int FROM members WHERE account_id = \(account) AND left_at IS NULL", logger: database.logger
        ).decode(Int.self).reduce(0, +)
    }

    /// A new household with `account` as its owner; returns the owner's membership.
    func create(name: String, currency: Currency, owner account: UUID, on connection: PostgresConnection) async throws -> Membership {
        let household = UUID(), member = UUID(), now = database.now()
        try await connection.query(
            """
            INSERT INTO households (id, name, currency, created_at, updated_at) VALUES (\(household), \(name), \(currency.code), \(now), \(now))
            """,
            logger: database.logger)
        try await connection.query(
            "INSERT INTO members (id, household_id, account_id, role, joined_at) VALUES (\(member), \(household), \(account), 'owner', \(now))",
            logger: database.logger)
        return Membership(household: household, member: member, role: .owner)
    }

    /// `account` belongs to `household` again, or for the first time, as a member; returns its membership.
    func add(_ account: UUID, to household: UUID, on connection: PostgresConnection) async throws -> Membership {
        let rows = try await connection.query(
            """
            INSERT INTO members (id, household_id, account_id, role, joined_at) VALUES (\(UUID()), \(household), \(account), 'member', \(database.now()))
            ON CONFLICT (household_id, account_id) DO UPDATE SET left_at = NULL, role = 'member'
            RETURNING id
            """,
            logger: database.logger)
        for try await member in rows.decode(UUID.self) { return Membership(household: household, member: member, role: .member) }
        throw OperationError(.internal, "the membership was not recorded")
    }

    /// How many belong to `household` now.
    func memberCount(of household: UUID, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            "SELECT count(*)::int FROM members WHERE household_id = \(household) AND left_at IS NULL", logger: database.logger
        ).decode(Int.self).reduce(0, +)
    }

    /// The members who belong to `household` now, in the order they joined.
    func currentMembers(of household: UUID, on connection: PostgresConnection) async throws -> [UUID] {
        try await connection.query(
            "SELECT id FROM members WHERE household_id = \(household) AND left_at IS NULL ORDER BY seq", logger: database.logger
        ).decode(UUID.self).reduce(into: []) { $0.append($1) }
    }

    /// The account of member `member` of `household`: nil when no such member, `.some(nil)` once
    /// their account was erased.
    func account(of member: UUID, in household: UUID, on connection: PostgresConnection) async throws -> UUID?? {
        let rows = try await connection.query("SELECT account_id FROM members WHERE id = \(member) AND household_id = \(household)", logger: database.logger)
        for try await account in rows.decode(UUID?.self) { return .some(account) }
        return nil
    }

    /// Everyone who belongs or belonged to `household`.
    func everyMember(of household: UUID, on connection: PostgresConnection) async throws -> Set<UUID> {
        try await connection.query("SELECT id FROM members WHERE household_id = \(household)", logger: database.logger)
            .decode(UUID.self).reduce(into: []) { $0.insert($1) }
    }

    /// Minutes before a chore's due time its reminder goes out in `household`.
    func reminderLead(of household: UUID, on connection: PostgresConnection) async throws -> Int {
        try await connection.query("SELECT reminder_lead_minutes FROM households WHERE id = \(household)", logger: database.logger)
            .decode(Int.self).reduce(60) { $1 }
    }

    /// Whether `household` settles debts by the fewest transfers.
    func simplifiesDebts(_ household: UUID, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query("SELECT simplify_debts FROM households WHERE id = \(household)", logger: database.logger)
            .decode(Bool.self).reduce(true) { $1 }
    }

    /// The role of a member who belongs to `household` now; nil for anyone else.
    func currentRole(of member: UUID, in household: UUID, on connection: PostgresConnection) async throws -> Household.Role? {
        let rows = try await connection.query(
            "SELECT role FROM members WHERE id = \(member) AND household_id = \(household) AND left_at IS NULL", logger: database.logger)
        for try await role in rows.decode(String.self) { return Household.Role(rawValue: role) }
        return nil
    }

    /// The member no longer belongs (what they did stays theirs).
    func remove(_ member: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE members SET left_at = \(database.now()), role = 'member' WHERE id = \(member)", logger: database.logger)
    }

    /// `to` becomes the owner of `household` and its owner a member.
    func transferOwnership(of household: UUID, to member: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE members SET role = 'member' WHERE household_id = \(household) AND role = 'owner' AND left_at IS NULL", logger: database.logger)
        try await connection.query("UPDATE members SET role = 'owner' WHERE id = \(member)", logger: database.logger)
    }

    /// Deletes the household and everything in it, its photos' images first (the kit's media store
    /// is not reached by the cascade).
    func delete(_ household: UUID, on connection: PostgresConnection) async throws {
        try await PhotoStore(database: database, media: MediaLibrary(database: database)).deleteAll(of: household, on: connection)
        try await connection.query("DELETE FROM households WHERE id = \(household)", logger: database.logger)
    }

    /// Sets the given settings when the household is at `version`; false when it moved on.
    func update(_ household: UUID, version: Int, name: String?, currency: Currency?, simplifyDebts: Bool?, reminderLeadMinutes: Int?,
                on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(
            """
            UPDATE households SET name = coalesce(\(name), name), currency = coalesce(\(currency?.code), currency),
                simplify_debts = coalesce(\(simplifyDebts), simplify_debts),
                reminder_lead_minutes = coalesce(\(reminderLeadMinutes), reminder_lead_minutes),
                version = version + 1, updated_at = \(database.now())
            WHERE id = \(household) AND version = \(version)
            RETURNING 1
            """,
            logger: database.logger
        ).collect().count == 1
    }

    /// The household as the member `membership` sees it.
    func view(_ membership: Membership, on connection: PostgresConnection) async throws -> Household.View {
        guard let view = try await views(of: [membership], on: connection).first else { throw HouseholdAccess.notFound }
        return view
    }

    /// The households of `account`, the one joined last first.
    func views(of account: UUID, on connection: PostgresConnection) async throws -> [Household.View] {
        let rows = try await connection.query(
            "SELECT household_id, id, role FROM members WHERE account_id = \(account) AND left_at IS NULL ORDER BY joined_at DESC, seq DESC",
            logger: database.logger)
        var memberships: [Membership] = []
        for try await (household, member, role) in rows.decode((UUID, UUID, String).self) {
            memberships.append(Membership(household: household, member: member, role: Household.Role(rawValue: role) ?? .member))
        }
        return try await views(of: memberships, on: connection)
    }

    private func views(of memberships: [Membership], on connection: PostgresConnection) async throws -> [Household.View] {
        guard !memberships.isEmpty else { return [] }
        let ids = memberships.map(\.household)
        var members: [UUID: [Household.Member]] = [:]
        let memberRows = try await connection.query(
            """
            SELECT household_id, id, account_id, role, joined_at, left_at, away FROM members WHERE household_id = ANY(\(ids))
            ORDER BY left_at IS NOT NULL, seq
            """,
            logger: database.logger)
        for try await (household, id, account, role, joined, left, away) in memberRows.decode((UUID, UUID, UUID?, String, Date, Date?, Bool).self) {
            members[household, default: []].append(Household.Member(
                memberId: Self.text(id), accountId: account.map(Self.text), role: Household.Role(rawValue: role) ?? .member, joinedAt: joined,
                leftAt: left, away: away && left == nil ? true : nil))
        }
        var households: [UUID: Household.View] = [:]
        let rows = try await connection.query(
            "SELECT id, name, currency, simplify_debts, reminder_lead_minutes, version, created_at FROM households WHERE id = ANY(\(ids))",
            logger: database.logger)
        for try await (id, name, currency, simplify, lead, version, created) in rows.decode((UUID, String, String, Bool, Int, Int, Date).self) {
            households[id] = Household.View(
                id: Self.text(id), name: name, currency: Currency(rawValue: currency) ?? .eur, simplifyDebts: simplify, reminderLeadMinutes: lead,
                role: .member, memberId: "", members: members[id] ?? [], version: version, createdAt: created)
        }
        return memberships.compactMap { membership in
            guard var view = households[membership.household] else { return nil }
            view.role = membership.role
            view.memberId = Self.text(membership.member)
            return view
        }
    }

    static func text(_ id: UUID) -> String { id.uuidString.lowercased() }
}

extension String {
    /// The UUID of an id this service wrote as text (`HouseholdStore.text`).
    var uuid: UUID { UUID(uuidString: self)! }
}
