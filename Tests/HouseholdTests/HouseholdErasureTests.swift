import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
@testable import HouseholdService
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

extension HouseholdStackTests {
/// A deleted account's memberships: the others keep a whole household with a former member in it,
/// a household it owned passes on, one it was alone in goes.
@Suite(.timeLimit(.minutes(2))) struct HouseholdErasureTests {
    @Test func anErasedMembersHouseholdsPassOnOrGoAndTheirPlaceStaysAsAFormerMember() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(ServiceDefinition.household.migrations())
            let store = HouseholdStore(database: database)
            let (ana, ben, cara) = (UUID(), UUID(), UUID())
            let (shared, alone, left) = try await database.transaction { connection in
                // Ana owns one shared with Ben and Cara (Ben joined first), one alone, and left a third of Cara's.
                let shared = try await store.create(name: "Shared", currency: .eur, owner: ana, on: connection)
                _ = try await store.add(ben, to: shared.household, on: connection)
                _ = try await store.add(cara, to: shared.household, on: connection)
                let alone = try await store.create(name: "Alone", currency: .eur, owner: ana, on: connection)
                let left = try await store.create(name: "Cara's", currency: .eur, owner: cara, on: connection)
                try await store.remove(try await store.add(ana, to: left.household, on: connection).member, on: connection)
                return (shared, alone, left)
            }
            let erasure = AccountErasureHandler(database: database, households: store)
            let context = RequestContext(attributes: .init(source: "urn:melon:auth", type: Household.Account.Erase.type), logger: .init(label: "erase"), bus: nil)
            let erased = try await erasure.erase(AccountErasure(account: ana.uuidString.lowercased(), email: "ana@tcd.ie"), context)
            #expect(erased == .init(membershipsAnonymised: 2, householdsDeleted: 1))
            #expect(try await erasure.erase(AccountErasure(account: ana.uuidString.lowercased(), email: "ana@tcd.ie"), context) == .init(membershipsAnonymised: 0, householdsDeleted: 0))

            try await database.transaction { connection in
                let benView = try #require(try await store.membership(of: shared.household, account: ben, on: connection))
                #expect(benView.role == .owner, "the member who belonged longest owns it now")
                let view = try await store.view(benView, on: connection)
                let former = try #require(view.members.first { $0.memberId == shared.member.uuidString.lowercased() })
                #expect(former.accountId == nil && former.leftAt != nil && former.role == .member, "Ana is a former member, under her member id")
                #expect(view.members.filter { $0.leftAt == nil }.map(\.accountId) == [ben, cara].map { $0.uuidString.lowercased() })
                #expect(try await store.views(of: ana, on: connection).isEmpty)
                #expect(try await store.memberCount(of: alone.household, on: connection) == 0, "the household she was alone in is gone")
                let caras = try await store.view(try #require(try await store.membership(of: left.household, account: cara, on: connection)), on: connection)
                #expect(caras.members.count == 2 && caras.members.allSatisfy { $0.accountId != ana.uuidString.lowercased() })
            }
        }
    }
}
}
