import AccessTokens
import Contracts
import Envelope
import Foundation
import Testing
import TestSupport

/// The signed-in account holder's own settings through the gateway: password change and the
/// security record.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(10))) struct AuthAccountTests {
    static func kinds(_ reply: HTTPTestClient.Reply) -> [String] {
        guard case .array(let events)? = reply.json?["events"] else { return [] }
        return events.compactMap { if case .string(let kind)? = $0["kind"] { kind } else { nil } }
    }

    @Test func changingThePasswordEndsTheOtherSessionsAndTheSecurityRecordShowsWhatHappened() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            let email = "cian@tcd.ie", old = "correct horse battery staple cian", new = "a different pass phrase for cian"
            let other = try await AuthJourneyTests.signedUp(stack, http, email: email, username: "cian")
            #expect(try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": "not it"], from: "198.51.100.23").status == 401)
            let login = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(old)], from: "198.51.100.24")
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
            #expect(try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(old)]).status == 401)
            #expect(try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(new)]).status == 200)

            let record = try await http.get("/v1/me/security-events", headers: auth)
            #expect(record.status == 200, "\(record.text)")
            #expect(Self.kinds(record) == ["login", "login_failed", "refresh_token_refused", "password_changed", "login", "login_failed", "login"],
                    "newest first: \(record.text)")
            guard case .array(let events)? = record.json?["events"] else { return }
            #expect(events[2]["detail"] == "session_ended", "the other session's token")
            #expect(events[3]["ip"] == "198.51.100.24" && events[5]["ip"] == "198.51.100.23", "the client address from the proxy")
            #expect(record.json?["nextAfter"] == nil, "one page")

            let first = try await http.get("/v1/me/security-events?limit=2", headers: auth)
            #expect(Self.kinds(first) == ["login", "login_failed"])
            guard case .number(let before)? = first.json?["nextAfter"] else { Issue.record("no nextAfter: \(first.text)"); return }
            let second = try await http.get("/v1/me/security-events?limit=2&after=\(Int(before))", headers: auth)
            #expect(Self.kinds(second) == ["refresh_token_refused", "password_changed"], "\(second.text)")
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

extension ServiceStackTests.AuthAccountTests {
    static func agreement(_ reply: HTTPTestClient.Reply, _ policy: String) -> JSONValue? {
        guard case .array(let items)? = reply.json?["agreements"] else { return nil }
        return items.first { $0["policy"] == .string(policy) }
    }

    @Test func agreementsAreListedSignedWithdrawnAndAskedForAgainWhenANewVersionIsPublished() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            let tokens = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "aoife@ucd.ie", username: "aoife")
            let auth = ["Authorization": "Bearer \(tokens.access)", "Content-Type": "application/json"]
            #expect(try await http.get("/v1/me/agreements").status == 401)
            let fresh = try await http.get("/v1/me/agreements", headers: auth)
            #expect(fresh.status == 200, "\(fresh.text)")
            #expect(Self.agreement(fresh, "terms")?["status"] == "unsigned" && Self.agreement(fresh, "terms")?["required"] == true)
            #expect(Self.agreement(fresh, "marketing-email")?["required"] == false)

            let signed = try await http.send("PUT", "/v1/me/agreements/terms", body: Array(#"{"version":1}"#.utf8), headers: auth)
            #expect(signed.status == 200 && signed.json?["status"] == "signed" && signed.json?["signedVersion"] == 1, "\(signed.text)")
            let unknown = try await http.send("PUT", "/v1/me/agreements/no-such-policy", body: Array(#"{"version":1}"#.utf8), headers: auth)
            #expect(unknown.status == 404, "\(unknown.text)")
            let future = try await http.send("PUT", "/v1/me/agreements/privacy", body: Array(#"{"version":2}"#.utf8), headers: auth)
            #expect(future.status == 409 && ServiceStackTests.AuthJourneyTests.fields(future) == ["version"], "\(future.text)")

            #expect(try await http.send("PUT", "/v1/me/agreements/marketing-email", body: Array(#"{"version":1}"#.utf8), headers: auth).status == 200)
            let withdrawn = try await http.send("DELETE", "/v1/me/agreements/marketing-email", headers: auth)
            #expect(withdrawn.status == 200 && withdrawn.json?["status"] == "withdrawn" && withdrawn.json?["withdrawnAt"] != nil, "\(withdrawn.text)")

            // The next access token names the username and the policies signed and not withdrawn:
            // what a service that needs one (the marketplace's rules) checks.
            let next = try await http.post("/v1/auth/refresh", ["refreshToken": .string(tokens.refresh)])
            let access = try #require(ServiceStackTests.AuthJourneyTests.string(next, "accessToken"), "\(next.text)")
            let payload = try #require(Data(base64URL: String(access.split(separator: ".")[1])))
            let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect(claims["preferred_username"] as? String == "aoife")
            #expect(claims["agr"] as? [String] == ["terms"], "signed and not withdrawn: \(claims)")

            // Publishing version 2 of the terms is a row in the table: the signature is outdated.
            try await TestDatabase.run(
                "INSERT INTO auth.policies VALUES ('terms', 2, 'Terms of Service', 'https://melon.example/legal/terms/2', true, now())",
                on: stack.databaseURL)
            let later = try await http.get("/v1/me/agreements", headers: auth)
            #expect(Self.agreement(later, "terms")?["status"] == "outdated" && Self.agreement(later, "terms")?["version"] == 2, "\(later.text)")
            #expect(Self.agreement(later, "marketing-email")?["status"] == "withdrawn")
            let old = try await http.send("PUT", "/v1/me/agreements/terms", body: Array(#"{"version":1}"#.utf8), headers: auth)
            #expect(old.status == 409, "the old text can no longer be signed: \(old.text)")
            #expect(try await http.send("PUT", "/v1/me/agreements/terms", body: Array(#"{"version":2}"#.utf8), headers: auth).json?["status"] == "signed")

            let other = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "ruairi@ucd.ie", username: "ruairi")
            let theirs = try await http.get("/v1/me/agreements", headers: ["Authorization": "Bearer \(other.access)"])
            #expect(Self.agreement(theirs, "terms")?["status"] == "unsigned", "signatures are per account")
        }
    }
}

extension ServiceStackTests.AuthAccountTests {
    @Test func aProfilePictureIsSentAsItselfKeptWithoutMetadataAndServedAsAFile() async throws {
        let stack = try await AuthStack(authEnvironment: ["AUTH_PICTURE_MAX_BYTES": "1024"])
        try await stack.with { http in
            let tokens = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "eimear@tcd.ie", username: "eimear")
            let bearer = ["Authorization": "Bearer \(tokens.access)"]
            func put(_ mediaType: String, _ bytes: [UInt8]) async throws -> HTTPTestClient.Reply {
                try await http.send("PUT", "/v1/me/picture", body: bytes, headers: bearer.merging(["Content-Type": mediaType]) { $1 })
            }
            let phone = ImageSamples.withGPSPosition(ImageSamples.jpeg40x30)
            let set = try await put("image/jpeg", phone)
            #expect(set.status == 200, "\(set.text)")
            #expect(set.json?["mediaType"] == "image/jpeg" && set.json?["width"] == 40 && set.json?["height"] == 30, "\(set.text)")

            let me = try await http.get("/v1/me", headers: bearer)
            #expect(me.json?["picture"]?["mediaType"] == "image/jpeg" && me.json?["picture"]?["size"] == set.json?["size"], "\(me.text)")
            let id = try #require(ServiceStackTests.AuthJourneyTests.string(me, "id"))

            let other = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "colm@tcd.ie", username: "colm")
            let theirs = ["Authorization": "Bearer \(other.access)"]
            let seen = try await http.get("/v1/users/\(id)/picture", headers: theirs)
            #expect(seen.status == 200 && seen.header("Content-Type") == "image/jpeg" && seen.header("Cache-Control") == "private, no-cache", "\(seen.headers)")
            #expect(seen.body.starts(with: [0xFF, 0xD8, 0xFF]) && seen.body != phone && !ImageSamples.contains(seen.body, "Exif"), "re-encoded, without the position")
            let etag = try #require(seen.header("ETag"))
            #expect(try await http.get("/v1/users/\(id)/picture", headers: theirs.merging(["If-None-Match": etag]) { $1 }).status == 304)
            let part = try await http.get("/v1/users/\(id)/picture", headers: theirs.merging(["Range": "bytes=0-9"]) { $1 })
            #expect(part.status == 206 && part.body == Array(seen.body.prefix(10)) && part.header("Content-Range") == "bytes 0-9/\(seen.body.count)")
            let thumbnail = try await http.get("/v1/users/\(id)/picture?size=thumbnail", headers: theirs)
            #expect(thumbnail.status == 200 && thumbnail.header("Content-Type") == "image/webp" && thumbnail.header("ETag") != etag)
            #expect(try await http.get("/v1/users/\(id)/picture").status == 401, "members only")

            let lying = try await put("image/png", ImageSamples.webpLossless40x30)
            #expect(lying.status == 400 && ServiceStackTests.AuthJourneyTests.fields(lying) == ["content"], "\(lying.text)")
            #expect(try await put("image/gif", Array("GIF89a".utf8)).status == 415, "a media type outside the list never reaches the service")
            let json = try await put("application/json", Array(#"{"mediaType":"image/png","content":"iVBORw0KGgo="}"#.utf8))
            #expect(json.status == 415, "the file itself, not base64 in JSON: \(json.text)")
            let tiny = try await put("image/png", ImageSamples.png8x8)
            #expect(tiny.status == 400 && ServiceStackTests.AuthJourneyTests.fields(tiny) == ["content"], "\(tiny.text)")
            let big = try await put("image/png", ImageSamples.png40x30)
            #expect(big.status == 413 && ServiceStackTests.AuthJourneyTests.fields(big) == ["content"], "over AUTH_PICTURE_MAX_BYTES: \(big.text)")
            let huge = try await put("image/png", [UInt8](repeating: 0, count: ImageType.maxUploadBytes + 1))
            #expect(huge.status == 413, "over the gateway's upload limit: \(huge.text)")
            #expect(try await http.get("/v1/me", headers: bearer).json?["picture"]?["mediaType"] == "image/jpeg", "refusals changed nothing")

            #expect(try await put("image/webp", ImageSamples.webpLossy40x30).json?["mediaType"] == "image/webp", "replaced")
            let replaced = try await http.get("/v1/users/\(id)/picture", headers: theirs.merging(["If-None-Match": etag]) { $1 })
            #expect(replaced.status == 200 && replaced.header("Content-Type") == "image/webp", "the old tag names a file that is gone")
            let removed = try await http.send("DELETE", "/v1/me/picture", headers: bearer)
            #expect(removed.status == 200 && removed.json == ["deleted": true], "\(removed.text)")
            #expect(try await http.get("/v1/me", headers: bearer).json?["picture"]?["isDefault"] == true, "the default picture again")
            let fallback = try await http.get("/v1/users/\(id)/picture", headers: bearer)
            #expect(fallback.header("Content-Type") == "image/png" && fallback.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))

            // Each upload is decoded, kept or not: 20 an hour per account (4 so far).
            var statuses: [Int] = []
            for _ in 0..<17 { statuses.append(try await put("image/png", ImageSamples.png8x8).status) }
            #expect(statuses == Array(repeating: 400, count: 16) + [429], "\(statuses)")
        }
    }
}

extension ServiceStackTests.AuthAccountTests {
    @Test func eachAppSignsInForItselfItsTokensNameItAndItListsItsOwnPolicies() async throws {
        typealias Journey = ServiceStackTests.AuthJourneyTests
        let stack = try await AuthStack()
        try await stack.with { http in
            let email = "saoirse@tcd.ie", password = "correct horse battery staple saoirse"
            let melon = try await Journey.signedUp(stack, http, email: email, username: "saoirse")
            #expect(try Journey.claims(of: melon.access)["client_id"] as? String == "melon")

            let nameless = try await http.post("/v1/auth/login", ["email": .string(email), "password": .string(password)])
            #expect(nameless.status == 400 && Journey.fields(nameless) == ["app"], "a login names its app: \(nameless.text)")
            let unknown = try await http.post("/v1/auth/login", ["app": "orbit", "email": .string(email), "password": .string(password)])
            #expect(unknown.status == 400 && Journey.fields(unknown) == ["app"], "\(unknown.text)")
            let login = try await http.post("/v1/auth/login", ["app": "marketplace", "email": .string(email), "password": .string(password)])
            let market = try #require(Journey.string(login, "accessToken")), marketRefresh = try #require(Journey.string(login, "refreshToken"))
            #expect(try Journey.claims(of: market)["client_id"] as? String == "marketplace")
            let refreshed = try await http.post("/v1/auth/refresh", ["refreshToken": .string(marketRefresh)])
            #expect(try Journey.claims(of: try #require(Journey.string(refreshed, "accessToken")))["client_id"] as? String == "marketplace",
                    "a refresh keeps the session's app")

            func headers(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)", "Content-Type": "application/json"] }
            func policies(_ token: String) async throws -> [String] {
                guard case .array(let items)? = try await http.get("/v1/me/agreements", headers: headers(token)).json?["agreements"] else { return [] }
                return items.compactMap { if case .string(let id)? = $0["policy"] { id } else { nil } }
            }
            #expect(try await policies(melon.access) == ["marketing-email", "privacy", "terms"], "the marketplace's rules are not the tax helper's")
            #expect(try await policies(market) == ["marketing-email", "marketplace-rules", "privacy", "terms"])
            let elsewhere = try await http.send("PUT", "/v1/me/agreements/marketplace-rules", body: Array(#"{"version":1}"#.utf8), headers: headers(melon.access))
            #expect(elsewhere.status == 404, "another app's policy is not found here: \(elsewhere.text)")
            #expect(try await http.send("PUT", "/v1/me/agreements/marketplace-rules", body: Array(#"{"version":1}"#.utf8), headers: headers(market)).status == 200)
            #expect(try await http.send("PUT", "/v1/me/agreements/terms", body: Array(#"{"version":1}"#.utf8), headers: headers(melon.access)).status == 200)
            let terms = try await http.get("/v1/me/agreements", headers: headers(market))
            #expect(Self.agreement(terms, "terms")?["status"] == "signed", "one account, one set of terms for every app")

            // A session from before sessions named their app ends at its next refresh.
            try await TestDatabase.run("UPDATE auth.sessions SET app = NULL WHERE revoked_at IS NULL AND app = 'melon'", on: stack.databaseURL)
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(melon.refresh)]).status == 401)
            #expect(try await http.get("/v1/me", headers: headers(melon.access)).status == 401, "its session ended")
            #expect(try await http.get("/v1/me", headers: headers(market)).status == 200, "the marketplace's goes on")
        }
    }
}
