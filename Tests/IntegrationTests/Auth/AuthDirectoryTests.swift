import Envelope
import Foundation
import Testing
import TestSupport

/// What members see of one another and what the login screen sees, through the gateway: the
/// university networks, first and last names, the default picture, member search and public profiles.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(10))) struct AuthDirectoryTests {
    typealias Journey = AuthJourneyTests

    static func usernames(_ reply: HTTPTestClient.Reply) -> [String] {
        guard case .array(let users)? = reply.json?["users"] else { return [] }
        return users.compactMap { if case .string(let name)? = $0["username"] { name } else { nil } }
    }

    @Test func theLoginScreenListsTheUniversitiesWithTheirDomainsAndCampuses() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            let listed = try await http.get("/v1/universities")
            #expect(listed.status == 200, "anyone, before signing in: \(listed.text)")
            guard case .array(let universities)? = listed.json?["universities"] else { Issue.record("\(listed.text)"); return }
            #expect(universities.compactMap { if case .string(let name)? = $0["name"] { name } else { nil } } == [
                "Boston University", "Northeastern University", "Trinity College Dublin", "University College Dublin", "University of Galway",
            ], "by name")
            #expect(universities[0] == [
                "id": "bu", "name": "Boston University", "domains": ["bu.edu"],
                "campuses": [
                    ["id": "charles-river", "name": "Charles River, Boston", "main": true], ["id": "medical", "name": "Medical Campus, Boston", "main": false],
                ],
            ], "the main campus first")
            #expect(universities[3]["domains"] == ["ucd.ie", "ucdconnect.ie"])
        }
    }

    @Test func namesTheDefaultPictureSearchAndPublicProfilesNeverShowTheEmail() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            let ana = try await Journey.signedUp(stack, http, email: "ana.byrne@tcd.ie", username: "ana_b", more: [
                "displayName": "Ana Byrne", "firstName": " Ana ", "lastName": "Byrne",
            ])
            let anaAuth = ["Authorization": "Bearer \(ana.access)", "Content-Type": "application/json"]
            let me = try await http.get("/v1/me", headers: anaAuth)
            #expect(me.json?["firstName"] == "Ana" && me.json?["lastName"] == "Byrne", "trimmed, kept from the registration: \(me.text)")
            #expect(me.json?["picture"]?["isDefault"] == true && me.json?["picture"]?["width"] == 240, "a default picture: \(me.text)")
            let anaID = try #require(Journey.string(me, "id"))

            let patch = { (body: String) in try await http.send("PATCH", "/v1/me", body: Array(body.utf8), headers: anaAuth) }
            let hidden = try await patch(#"{"firstName":"A\u202Ena"}"#)
            #expect(hidden.status == 400 && Journey.fields(hidden) == ["firstName"], "no format characters: \(hidden.text)")
            let cleared = try await patch(#"{"lastName":""}"#)
            #expect(cleared.status == 200 && cleared.json?["lastName"] == nil && cleared.json?["firstName"] == "Ana", "empty removes it: \(cleared.text)")

            let colm = try await Journey.signedUp(stack, http, email: "colm@ucd.ie", username: "colm", more: ["displayName": "Colm O'Brien"])
            _ = try await Journey.signedUp(stack, http, email: "annie@bu.edu", username: "annie", more: ["displayName": "Annie Walsh"])
            let colmAuth = ["Authorization": "Bearer \(colm.access)"]
            func search(_ query: String) async throws -> HTTPTestClient.Reply { try await http.get("/v1/users?\(query)", headers: colmAuth) }

            let an = try await search("q=an")
            #expect(an.status == 200 && Self.usernames(an) == ["ana_b", "annie"], "\(an.text)")
            guard case .array(let users)? = an.json?["users"], let first = users.first else { return }
            #expect(first["displayName"] == "Ana Byrne" && first["university"]?["id"] == "tcd" && first["picture"]?["isDefault"] == true)
            #expect(first["email"] == nil && first["firstName"] == nil && first["lastName"] == nil, "never the email or the names: \(an.text)")
            #expect(Self.usernames(try await search("q=BYR")) == ["ana_b"], "a word of the display name, any case")
            #expect(Self.usernames(try await search("q=%40ann")) == ["annie"], "@ names a username")
            #expect(Self.usernames(try await search("q=an&university=tcd")) == ["ana_b"], "one network")
            #expect(Self.usernames(try await search("q=a_")) == [], "_ matches itself, not any letter")
            #expect(Self.usernames(try await search("q=%25%25")) == [], "% matches itself, not everything")
            #expect(Self.usernames(try await search("q=ana.byrne%40tcd")) == [], "the email is never searched")

            let page = try await search("q=an&limit=1")
            #expect(Self.usernames(page) == ["ana_b"] && page.json?["nextAfter"] == "ana_b", "\(page.text)")
            let next = try await search("q=an&limit=1&after=ana_b")
            #expect(Self.usernames(next) == ["annie"] && next.json?["nextAfter"] == nil, "\(next.text)")
            let short = try await search("q=a")
            #expect(short.status == 400 && Journey.fields(short) == ["q"], "\(short.text)")
            let many = try await search("q=an&limit=51")
            #expect(many.status == 400 && Journey.fields(many) == ["limit"], "\(many.text)")
            #expect(try await http.get("/v1/users?q=an").status == 401, "members only")

            let profile = try await http.get("/v1/users/\(anaID)", headers: colmAuth)
            #expect(profile.status == 200, "\(profile.text)")
            #expect(profile.json?["username"] == "ana_b" && profile.json?["university"]?["name"] == "Trinity College Dublin")
            #expect(profile.json?["email"] == nil && profile.json?["firstName"] == nil, "\(profile.text)")
            let joined = try #require(Journey.string(profile, "joinedOn"))
            #expect(joined.hasSuffix("T00:00:00.000Z") || joined.hasSuffix("T00:00:00Z"), "the day alone: \(joined)")
            #expect(try await http.get("/v1/users/\(UUID().uuidString.lowercased())", headers: colmAuth).status == 404)
            let garbled = try await http.get("/v1/users/not-an-id", headers: colmAuth)
            #expect(garbled.status == 400 && Journey.fields(garbled) == ["account"], "\(garbled.text)")
            #expect(try await http.get("/v1/users/\(anaID)").status == 401)

            let picture = try await http.get("/v1/users/\(anaID)/picture", headers: colmAuth)
            #expect(picture.status == 200 && picture.header("Content-Type") == "image/png", "the default picture: \(picture.headers)")
            let profile240 = try await http.get("/v1/users/\(anaID)", headers: colmAuth)
            #expect(picture.body.starts(with: [0x89, 0x50, 0x4E, 0x47]) && profile240.json?["picture"]?["size"] == .number(Double(picture.body.count)))
            let colmID = try #require(Journey.string(try await http.get("/v1/me", headers: colmAuth), "id"))
            let colmsPicture = try await http.get("/v1/users/\(colmID)/picture", headers: colmAuth)
            #expect(colmsPicture.body != picture.body && colmsPicture.header("ETag") != picture.header("ETag"), "each account its own")
            #expect(try await http.get("/v1/users/\(UUID().uuidString.lowercased())/picture", headers: colmAuth).status == 404, "no account, no picture")
        }
    }
}
}
