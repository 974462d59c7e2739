import Envelope
import Foundation
import HouseholdService
import ServiceKit
import Testing
import TestSupport

extension HouseholdStackTests {
/// Households through the gateway's routing, in process, as three roommates' apps use them: signed
/// in with real access tokens the gateway checks, each request encoded and answered as over the bus.
@Suite(.timeLimit(.minutes(2))) struct HouseholdRouteTests {
    let ana = UUID(), ben = UUID(), cara = UUID()

    static func string(_ reply: HTTPTestClient.Reply, _ key: String) -> String? {
        if case .string(let value)? = reply.json?[key] { value } else { nil }
    }

    static func members(_ reply: HTTPTestClient.Reply) -> [JSONValue] {
        if case .array(let members)? = reply.json?["members"] { members } else { [] }
    }

    static func memberID(_ reply: HTTPTestClient.Reply, of account: UUID) -> String? {
        members(reply).first { $0["accountId"] == .string(account.uuidString.lowercased()) && $0["leftAt"] == nil }
            .flatMap { if case .string(let id)? = $0["memberId"] { id } else { nil } }
    }

    @Test func threeRoommatesCreateInviteJoinAndHandTheHouseholdOver() async throws {
        try await InProcessStack.with([.household]) { http in
            let (ana, ben, cara) = (try await http.signedIn(self.ana, as: .roommate), try await http.signedIn(self.ben, as: .roommate), try await http.signedIn(self.cara, as: .roommate))
            let create = #"{"name":"14 Pearse Street","currency":"EUR"}"#
            let created = try await http.post("/v1/households", json: create, headers: ana.merging(["Idempotency-Key": "create-1"]) { $1 })
            #expect(created.status == 201 && created.json?["role"] == "owner" && created.json?["version"] == 1, "\(created.text)")
            let household = try #require(Self.string(created, "id"))
            let retried = try await http.post("/v1/households", json: create, headers: ana.merging(["Idempotency-Key": "create-1"]) { $1 })
            #expect(Self.string(retried, "id") == household, "a retry with the same key is the same household")

            let invite = try await http.post("/v1/households/\(household)/invites", json: "{}", headers: ana)
            let code = try #require(Self.string(invite, "code"), "\(invite.text)")
            #expect(invite.status == 201 && code.count == 8 && code.allSatisfy { !"0O1IL".contains($0) })
            // Typed as people type it: lower case, a dash in the middle.
            let typed = code.lowercased().prefix(4) + "-" + code.lowercased().dropFirst(4)
            let joined = try await http.post("/v1/households/join", json: #"{"code":"\#(typed)"}"#, headers: ben)
            #expect(joined.status == 200 && joined.json?["role"] == "member" && Self.members(joined).count == 2, "\(joined.text)")
            #expect(try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: ben).status == 200, "joining again is harmless")
            #expect(try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: cara).status == 200)
            // The route's own path wins over /v1/households/{householdId}, as the router routes it.
            let wrongMethod = try await http.get("/v1/households/join", headers: ben)
            #expect(wrongMethod.status == 405 && wrongMethod.header("allow") == "POST", "\(wrongMethod.headers)")
            let listed = try await http.get("/v1/households", headers: ben)
            guard case .array(let households)? = listed.json?["households"] else { Issue.record("\(listed.text)"); return }
            #expect(households.count == 1 && households.first?["id"] == .string(household))

            // The owner's settings: a member is refused, a stale version is 409, the owner's change counts.
            #expect(try await http.send("PATCH", "/v1/households/\(household)", body: Array(#"{"version":1,"name":"Ours"}"#.utf8), headers: ben).status == 403)
            #expect(try await http.post("/v1/households/\(household)/invites", json: "{}", headers: ben).status == 403)
            let renamed = try await http.send("PATCH", "/v1/households/\(household)", body: Array(#"{"version":1,"simplifyDebts":false}"#.utf8), headers: ana)
            #expect(renamed.status == 200 && renamed.json?["version"] == 2 && renamed.json?["simplifyDebts"] == false, "\(renamed.text)")
            let stale = try await http.send("PATCH", "/v1/households/\(household)", body: Array(#"{"version":1,"name":"Ours"}"#.utf8), headers: ana)
            #expect(stale.status == 409 && stale.json?["current"] == renamed.json, "409 with the household as it is: \(stale.text)")

            // Cara is removed: she no longer reaches it, and answers are as for a household that never was.
            let caraMember = try #require(Self.memberID(renamed, of: self.cara))
            let removed = try await http.send("DELETE", "/v1/households/\(household)/members/\(caraMember)", headers: ana)
            #expect(removed.status == 200 && Self.members(removed).contains { $0["memberId"] == .string(caraMember) && $0["leftAt"] != nil }, "\(removed.text)")
            let lost = try await http.get("/v1/households/\(household)", headers: cara)
            let never = try await http.get("/v1/households/\(UUID().uuidString.lowercased())", headers: cara)
            #expect(lost.status == 404 && lost.json?["detail"] != nil && lost.json?["detail"] == never.json?["detail"] && lost.json?["fields"] == never.json?["fields"], "\(lost.text) against \(never.text)")

            // The owner may not leave others behind; she hands over first, then leaves; the last member's leaving deletes it.
            #expect(try await http.post("/v1/households/\(household)/leave", json: "{}", headers: ana).status == 409)
            let benMember = try #require(Self.memberID(renamed, of: self.ben))
            let handed = try await http.post("/v1/households/\(household)/members/\(benMember)/ownership", json: "{}", headers: ana)
            #expect(handed.status == 200 && handed.json?["role"] == "member", "\(handed.text)")
            let left = try await http.post("/v1/households/\(household)/leave", json: "{}", headers: ana)
            #expect(left.status == 200 && left.json?["householdDeleted"] == false, "\(left.text)")
            let last = try await http.post("/v1/households/\(household)/leave", json: "{}", headers: ben)
            #expect(last.status == 200 && last.json?["householdDeleted"] == true, "\(last.text)")
            #expect(try await http.get("/v1/households/\(household)", headers: ben).status == 404)
        }
    }

    /// Someone removed, or who left, does not come back with a code made before: only with a new one.
    @Test func aRemovedMemberNeedsANewCodeToComeBack() async throws {
        try await InProcessStack.with([.household]) { http in
            let (ana, ben) = (try await http.signedIn(self.ana, as: .roommate), try await http.signedIn(self.ben, as: .roommate))
            let household = try #require(Self.string(try await http.post("/v1/households", json: #"{"name":"Flat 3","currency":"EUR"}"#, headers: ana), "id"))
            let code = try #require(Self.string(try await http.post("/v1/households/\(household)/invites", json: "{}", headers: ana), "code"))
            let joined = try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: ben)
            let member = try #require(Self.memberID(joined, of: self.ben))
            #expect(try await http.send("DELETE", "/v1/households/\(household)/members/\(member)", headers: ana).status == 200)
            let back = try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: ben)
            #expect(back.status == 404, "the old code lets him back: \(back.text)")
            let fresh = try #require(Self.string(try await http.post("/v1/households/\(household)/invites", json: "{}", headers: ana), "code"))
            let again = try await http.post("/v1/households/join", json: #"{"code":"\#(fresh)"}"#, headers: ben)
            #expect(again.status == 200 && Self.memberID(again, of: self.ben) == member, "back with a new code, under his member id: \(again.text)")
        }
    }

    /// The owner alone leaves (the household goes) while someone joins with its code: one of them
    /// wins, and neither gets a server error.
    @Test func leavingAndJoiningAtOnceNeverFail() async throws {
        try await InProcessStack.with([.household]) { http in
            let (ana, ben) = (try await http.signedIn(self.ana, as: .roommate), try await http.signedIn(self.ben, as: .roommate))
            for _ in 0..<8 {
                let household = try #require(Self.string(try await http.post("/v1/households", json: #"{"name":"Flat 3","currency":"EUR"}"#, headers: ana), "id"))
                let code = try #require(Self.string(try await http.post("/v1/households/\(household)/invites", json: "{}", headers: ana), "code"))
                async let leave = http.post("/v1/households/\(household)/leave", json: "{}", headers: ana)
                async let join = http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: ben)
                let (left, joined) = try await (leave, join)
                #expect((left.status == 200 && joined.status == 404) || (left.status == 409 && joined.status == 200), "\(left.text) / \(joined.text)")
                if joined.status == 200 { _ = try await http.post("/v1/households/\(household)/leave", json: "{}", headers: ben) }
            }
        }
    }

    /// An account belongs to at most HOUSEHOLD_PER_ACCOUNT households, whether it creates or joins them.
    @Test func anAccountBelongsToNoMoreHouseholdsThanItsLimit() async throws {
        try await InProcessStack.with([.household], environment: ["HOUSEHOLD_PER_ACCOUNT": "1"]) { http in
            let (ana, ben) = (try await http.signedIn(self.ana, as: .roommate), try await http.signedIn(self.ben, as: .roommate))
            let flat = #"{"name":"Flat 3","currency":"EUR"}"#
            #expect(try await http.post("/v1/households", json: flat, headers: ana).status == 201)
            let second = try await http.post("/v1/households", json: flat, headers: ana)
            #expect(second.status == 409, "\(second.text)")
            let bens = try #require(Self.string(try await http.post("/v1/households", json: flat, headers: ben), "id"))
            let code = try #require(Self.string(try await http.post("/v1/households/\(bens)/invites", json: "{}", headers: ben), "code"))
            let join = try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: ana)
            #expect(join.status == 409, "\(join.text)")
        }
    }

    @Test func wrongCodesBackOffAndARevokedCodeOrAFullHouseholdLetsNobodyIn() async throws {
        let clock = MovableClock()
        let environment = ["HOUSEHOLD_JOIN_ATTEMPTS": "2", "HOUSEHOLD_MEMBERS_MAX": "2"]
        try await InProcessStack.with([.household], environment: environment, clock: clock.clock) { http in
            let (ana, ben, cara) = (try await http.signedIn(self.ana, as: .roommate), try await http.signedIn(self.ben, as: .roommate), try await http.signedIn(self.cara, as: .roommate))
            let created = try await http.post("/v1/households", json: #"{"name":"Flat 3","currency":"EUR"}"#, headers: ana)
            let household = try #require(Self.string(created, "id"))
            let code = try #require(Self.string(try await http.post("/v1/households/\(household)/invites", json: "{}", headers: ana), "code"))

            // Two wrong codes are free; the third waits, and so does the right code until the block ends.
            for wrong in ["AAAAAAAA", "BBBBBBBB"] { #expect(try await http.post("/v1/households/join", json: #"{"code":"\#(wrong)"}"#, headers: ben).status == 404) }
            let third = try await http.post("/v1/households/join", json: #"{"code":"CCCCCCCC"}"#, headers: ben)
            #expect(third.status == 404, "the third wrong code is counted, then blocks: \(third.text)")
            let blocked = try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: ben)
            #expect(blocked.status == 429 && blocked.header("retry-after") != nil, "\(blocked.text)")
            clock.advance(.seconds(31))
            #expect(try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: ben).status == 200)

            // Two members is the most here: a third is refused; a revoked code lets nobody in.
            let full = try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: cara)
            #expect(full.status == 409, "\(full.text)")
            #expect(try await http.send("DELETE", "/v1/households/\(household)/invites/\(code)", headers: ana).status == 200)
            #expect(try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: cara).status == 404)
            #expect(try await http.send("DELETE", "/v1/households/\(household)/invites/\(code)", headers: ana).status == 404, "revoked already")
        }
    }
}
}
