import Envelope
import Foundation
import Testing
import TestSupport

/// The signed-in account holder's own settings through the gateway: password change and the
/// security record.
extension ServiceStackTests {
@Suite struct AuthAccountTests {
    static func kinds(_ reply: HTTPTestClient.Reply) -> [String] {
        guard case .array(let events)? = reply.json?["events"] else { return [] }
        return events.compactMap { if case .string(let kind)? = $0["kind"] { kind } else { nil } }
    }

    @Test func changingThePasswordEndsTheOtherSessionsAndTheSecurityRecordShowsWhatHappened() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            let email = "cian@tcd.ie", old = "correct horse battery staple cian", new = "a different pass phrase for cian"
            let other = try await AuthJourneyTests.signedUp(stack, http, email: email, username: "cian")
            #expect(try await http.post("/v1/auth/login", ["email": .string(email), "password": "not it"], from: "198.51.100.23").status == 401)
            let login = try await http.post("/v1/auth/login", ["email": .string(email), "password": .string(old)], from: "198.51.100.24")
            let access = try #require(AuthJourneyTests.string(login, "accessToken"))
            let refresh = try #require(AuthJourneyTests.string(login, "refreshToken"))
            let auth = ["Authorization": "Bearer \(access)"]

            #expect(try await http.post("/v1/me/password", ["currentPassword": .string(old), "newPassword": .string(new)]).status == 401)
            let wrong = try await http.post("/v1/me/password", ["currentPassword": "not it", "newPassword": .string(new)], token: access)
            #expect(wrong.status == 400 && AuthJourneyTests.fields(wrong) == ["currentPassword"], "\(wrong.text)")
            let weak = try await http.post("/v1/me/password", ["currentPassword": .string(old), "newPassword": "password1"], token: access)
            #expect(weak.status == 400 && AuthJourneyTests.fields(weak) == ["newPassword"], "\(weak.text)")
            let changed = try await http.post("/v1/me/password", ["currentPassword": .string(old), "newPassword": .string(new)], token: access, from: "198.51.100.24")
            #expect(changed.status == 200 && changed.json == ["sessionsEnded": 1], "the first session ended: \(changed.text)")

            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(other.refresh)]).status == 401, "the other session ended")
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(refresh)]).status == 200, "this one goes on")
            #expect(try await http.get("/v1/me", headers: auth).status == 200)
            #expect(try await http.post("/v1/auth/login", ["email": .string(email), "password": .string(old)]).status == 401)
            #expect(try await http.post("/v1/auth/login", ["email": .string(email), "password": .string(new)]).status == 200)

            let record = try await http.get("/v1/me/security-events", headers: auth)
            #expect(record.status == 200, "\(record.text)")
            #expect(Self.kinds(record) == ["login", "login_failed", "password_changed", "login", "login_failed", "login"], "newest first: \(record.text)")
            guard case .array(let events)? = record.json?["events"] else { return }
            #expect(events[2]["ip"] == "198.51.100.24" && events[4]["ip"] == "198.51.100.23", "the client address from the proxy")
            #expect(record.json?["nextBefore"] == nil, "one page")

            let first = try await http.get("/v1/me/security-events?limit=2", headers: auth)
            #expect(Self.kinds(first) == ["login", "login_failed"])
            guard case .number(let before)? = first.json?["nextBefore"] else { Issue.record("no nextBefore: \(first.text)"); return }
            let second = try await http.get("/v1/me/security-events?limit=2&before=\(Int(before))", headers: auth)
            #expect(Self.kinds(second) == ["password_changed", "login"], "\(second.text)")
            let bad = try await http.get("/v1/me/security-events?limit=0", headers: auth)
            #expect(bad.status == 400 && AuthJourneyTests.fields(bad) == ["limit"], "\(bad.text)")

            // Another account sees only its own.
            let stranger = try await AuthJourneyTests.signedUp(stack, http, email: "niamh@tcd.ie", username: "niamh")
            let theirs = try await http.get("/v1/me/security-events", headers: ["Authorization": "Bearer \(stranger.access)"])
            #expect(Self.kinds(theirs) == ["login"], "\(theirs.text)")
        }
    }
}
}
