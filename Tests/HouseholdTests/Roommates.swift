import Foundation
import Testing
import TestSupport

/// Ana (the owner), Ben and Cara in one household, made through the routes as their apps make it.
struct Roommates {
    let ana = UUID(), ben = UUID(), cara = UUID()

    /// A household of Ana (owner), Ben and Cara: its id and each one's headers and member id.
    struct Flat {
        let id: String
        let ana: [String: String], ben: [String: String], cara: [String: String]
        let members: [String: String]
    }

    func flat(_ http: InProcessHTTP) async throws -> Flat {
        let (ana, ben, cara) = (try await http.signedIn(self.ana, as: .roommate), try await http.signedIn(self.ben, as: .roommate), try await http.signedIn(self.cara, as: .roommate))
        let created = try await http.post("/v1/households", json: #"{"name":"14 Pearse Street","currency":"EUR"}"#, headers: ana)
        let id = try #require(HouseholdStackTests.HouseholdRouteTests.string(created, "id"))
        let code = try #require(HouseholdStackTests.HouseholdRouteTests.string(try await http.post("/v1/households/\(id)/invites", json: "{}", headers: ana), "code"))
        _ = try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: ben)
        let joined = try await http.post("/v1/households/join", json: #"{"code":"\#(code)"}"#, headers: cara)
        var members: [String: String] = [:]
        for (name, account) in [("ana", self.ana), ("ben", self.ben), ("cara", self.cara)] {
            members[name] = try #require(HouseholdStackTests.HouseholdRouteTests.memberID(joined, of: account))
        }
        return Flat(id: id, ana: ana, ben: ben, cara: cara, members: members)
    }

    static func patch(_ http: InProcessHTTP, _ path: String, _ json: String, _ headers: [String: String]) async throws -> HTTPTestClient.Reply {
        try await http.send("PATCH", path, body: Array(json.utf8), headers: headers)
    }
}

extension TestCaller {
    /// A session of the household app, which household's routes are for.
    static let roommate = TestCaller(app: "household")
}
