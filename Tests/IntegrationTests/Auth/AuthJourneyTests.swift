import AccessTokens
import Crypto
import Envelope
import Foundation
import Testing
import TestSupport

/// Sign-up, verification, login, refresh and logout through the gateway over HTTP, with the codes
/// caught by a real SMTP server.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(10))) struct AuthJourneyTests {
    static func string(_ reply: HTTPTestClient.Reply, _ key: String) -> String? {
        if case .string(let value)? = reply.json?[key] { value } else { nil }
    }

    static func fields(_ reply: HTTPTestClient.Reply) -> [String] {
        guard case .array(let items)? = reply.json?["fields"] else { return [] }
        return items.compactMap { if case .string(let field)? = $0["field"] { field } else { nil } }
    }

    @Test func signUpVerifyLoginRefreshAndLogOut() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            let email = "Ana.Byrne@TCD.ie", address = "ana.byrne@tcd.ie", password = "a long walk by the Liffey"
            let registered = try await http.post("/v1/auth/register", [
                "email": .string(email), "password": .string(password), "displayName": "Ana Byrne", "username": "Ana_B",
            ])
            #expect(registered.status == 202, "\(registered.text)")
            #expect(registered.json?["email"] == .string(address))
            #expect(registered.json?["university"] == ["id": "tcd", "name": "Trinity College Dublin", "campus": "College Green, Dublin"])
            let attempt = try #require(Self.string(registered, "registration"))
            let code = try await stack.code(for: address)

            let early = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(address), "password": .string(password)])
            #expect(early.status == 403, "not verified yet: \(early.text)")

            let wrongCode = String(format: "%06d", (Int(code)! + 1) % 1_000_000)
            let wrong = try await http.post("/v1/auth/verify-email", ["email": .string(address), "code": .string(wrongCode), "registration": .string(attempt)])
            #expect(wrong.status == 400 && Self.fields(wrong) == ["code"], "\(wrong.text)")
            let verified = try await http.post("/v1/auth/verify-email", ["email": .string(address), "code": .string(code), "registration": .string(attempt)])
            #expect(verified.status == 200 && verified.json == ["verified": true], "\(verified.text)")

            let badPassword = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(address), "password": "not the password"])
            let nobody = try await http.post("/v1/auth/login", ["app": "melon", "email": "nobody@tcd.ie", "password": "not the password"])
            #expect(badPassword.status == 401 && nobody.status == 401)
            #expect(Self.string(badPassword, "detail") == Self.string(nobody, "detail"), "the same answer for both")

            let login = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)])
            #expect(login.status == 200, "\(login.text)")
            let access = try #require(Self.string(login, "accessToken")), refresh = try #require(Self.string(login, "refreshToken"))
            #expect(login.json?["expiresIn"] == .number(900) && login.json?["tokenType"] == "Bearer")
            #expect(Data(base64URL: refresh)?.count == 32, "at least 128 bits")
            let claims = try Self.claims(of: access)
            #expect(claims["univ"] as? String == "tcd" && claims["aud"] as? String == "melon" && claims["iss"] as? String == "urn:melon:auth")
            #expect((claims["exp"] as? Double ?? 0) - (claims["iat"] as? Double ?? 0) <= 900)

            let jwks = try await http.get("/.well-known/jwks.json")
            #expect(jwks.status == 200)
            guard case .array(let keys)? = jwks.json?["keys"] else { Issue.record("no keys: \(jwks.text)"); return }
            #expect(keys.contains { $0["kid"] == .string(try! Self.header(of: access)["kid"] as! String) })

            let rotated = try await http.post("/v1/auth/refresh", ["refreshToken": .string(refresh)])
            #expect(rotated.status == 200, "\(rotated.text)")
            let nextAccess = try #require(Self.string(rotated, "accessToken")), nextRefresh = try #require(Self.string(rotated, "refreshToken"))
            #expect(nextRefresh != refresh)
            #expect(try Self.claims(of: nextAccess)["sid"] as? String == claims["sid"] as? String, "the same session")

            #expect(try await http.post("/v1/auth/logout", [:]).status == 401, "logout needs a token")
            let logout = try await http.post("/v1/auth/logout", [:], token: nextAccess)
            #expect(logout.status == 200 && logout.json == ["ended": 1], "\(logout.text)")
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(nextRefresh)]).status == 401, "the session ended")
        }
    }

    @Test func reusingAnOldRefreshTokenEndsTheWholeSessionButAConcurrentRepeatDoesNot() async throws {
        let stack = try await AuthStack(authEnvironment: ["AUTH_REFRESH_GRACE": "3000"], movingTime: true)
        try await stack.with { http in
            let tokens = try await Self.signedUp(stack, http, email: "liam@ucd.ie", username: "liam")
            // Two refreshes with one token at once (two tabs): both get a pair.
            async let first = http.post("/v1/auth/refresh", ["refreshToken": .string(tokens.refresh)])
            async let second = http.post("/v1/auth/refresh", ["refreshToken": .string(tokens.refresh)])
            let (a, b) = try await (first, second)
            #expect(a.status == 200 && b.status == 200, "\(a.text) \(b.text)")
            let latest = try #require(Self.string(a, "refreshToken"))
            let next = try await http.post("/v1/auth/refresh", ["refreshToken": .string(latest)])
            #expect(next.status == 200)
            let newest = try #require(Self.string(next, "refreshToken"))

            // The first token again, after its rotation moved on: a replay. The whole family ends.
            stack.clock.advance(.seconds(3))
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(tokens.refresh)]).status == 401)
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(newest)]).status == 401, "the family was revoked")
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": "made-up"]).status == 401)
        }
    }

    @Test func badTokensAreRefusedAtTheGateway() async throws {
        let stack = try await AuthStack(authEnvironment: ["AUTH_ACCESS_TOKEN_LIFETIME": "2000"])
        try await stack.with { http in
            let tokens = try await Self.signedUp(stack, http, email: "niamh@example.org", username: "niamh")
            let header = try Self.header(of: tokens.access)
            let payload = String(tokens.access.split(separator: ".")[1])
            let none = Self.base64URL(Data(#"{"alg":"none","kid":"\#(header["kid"] as! String)"}"#.utf8)) + ".\(payload)."
            // Signed by a key of our own under the real key's id.
            let forgedHeader = Self.base64URL(Data(#"{"alg":"ES256","typ":"JWT","kid":"\#(header["kid"] as! String)"}"#.utf8))
            let signature = try P256.Signing.PrivateKey().signature(for: Data("\(forgedHeader).\(payload)".utf8)).rawRepresentation
            let forged = "\(forgedHeader).\(payload).\(Self.base64URL(signature))"
            var claims = try Self.claims(of: tokens.access)
            claims["aud"] = "another-api"
            let otherAudience = [String(tokens.access.split(separator: ".")[0]), Self.base64URL(try JSONSerialization.data(withJSONObject: claims)),
                                 String(tokens.access.split(separator: ".")[2])].joined(separator: ".")
            for (name, token) in [("alg none", none), ("forged", forged), ("other audience", otherAudience), ("garbage", "abc.def.ghi")] {
                let reply = try await http.post("/v1/auth/logout", [:], token: token)
                #expect(reply.status == 401, "\(name): \(reply.text)")
                #expect(reply.header("www-authenticate") == "Bearer", "\(name)")
            }
            // Past the token's 2 s on the gateway's clock.
            stack.clock.advance(.milliseconds(2500))
            let expired = try await http.post("/v1/auth/logout", [:], token: tokens.access)
            #expect(expired.status == 401 && Self.string(expired, "detail")?.contains("expired") == true, "\(expired.text)")
        }
    }

    @Test func registrationRefusesBadInputNamingTheField() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            let bad = try await http.post("/v1/auth/register", [
                "email": "not-an-email", "password": "password1", "displayName": "", "username": "9lives",
            ])
            // The gateway refuses what the schema forbids (an empty name, a username that starts with a
            // digit) before the bus; the service then names what only it can judge.
            #expect(bad.status == 400)
            #expect(Set(Self.fields(bad)) == ["displayName", "username"], "\(bad.text)")
            let meaning = try await http.post("/v1/auth/register", [
                "email": "not-an-email", "password": "password1", "displayName": "Nine", "username": "ninelives",
            ])
            #expect(meaning.status == 400 && Set(Self.fields(meaning)) == ["email", "password"], "\(meaning.text)")
            let short = try await http.post("/v1/auth/register", [
                "email": "a@example.org", "password": "short", "displayName": "A", "username": "abc",
            ])
            #expect(Self.fields(short) == ["password"], "\(short.text)")

            _ = try await Self.signedUp(stack, http, email: "cara@example.org", username: "cara")
            let taken = try await http.post("/v1/auth/register", [
                "email": "someone@example.org", "password": "another long passphrase", "displayName": "S", "username": "Cara",
            ])
            #expect(taken.status == 409 && Self.fields(taken) == ["username"], "\(taken.text)")
            // The same email again: the same answer as a new one; its owner gets a notice, not a code.
            let again = try await http.post("/v1/auth/register", [
                "email": "cara@example.org", "password": "another long passphrase", "displayName": "X", "username": "someoneelse",
            ])
            #expect(again.status == 202 && again.json?["email"] == "cara@example.org", "\(again.text)")
            #expect(await eventually(timeout: .seconds(20)) { try stack.mailCount(to: "cara@example.org") == 2 })
        }
    }

    @Test func aPasswordResetEndsEverySessionAndTheProfileCanBeReadChangedAndDeleted() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            let email = "orla@universityofgalway.ie"
            let tokens = try await Self.signedUp(stack, http, email: email, username: "orla")
            let me = try await http.send("GET", "/v1/me", headers: ["Authorization": "Bearer \(tokens.access)"])
            #expect(me.status == 200, "\(me.text)")
            #expect(me.json?["username"] == "orla" && me.json?["email"] == .string(email))
            #expect(me.json?["university"]?["id"] == "universityofgalway")

            // Forgot, reset: the old sessions end, the new password works, the old one does not.
            #expect(try await http.post("/v1/auth/password/forgot", ["email": "nobody@example.org"]).status == 202, "the same for anyone")
            #expect(try await http.post("/v1/auth/password/forgot", ["email": .string(email)]).status == 202)
            let code = try await stack.code(for: email, after: 1)
            let weak = try await http.post("/v1/auth/password/reset", ["email": .string(email), "code": .string(code), "newPassword": "password"])
            #expect(weak.status == 400 && Self.fields(weak) == ["newPassword"], "\(weak.text)")
            let newPassword = "a brand new pass phrase for orla"
            let reset = try await http.post("/v1/auth/password/reset", ["email": .string(email), "code": .string(code), "newPassword": .string(newPassword)])
            #expect(reset.status == 200 && reset.json == ["sessionsEnded": 1], "\(reset.text)")
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(tokens.refresh)]).status == 401, "the reset ended the session")
            #expect(try await http.send("GET", "/v1/me", headers: ["Authorization": "Bearer \(tokens.access)"]).status == 401,
                    "the ended session's access token stops working at once")
            #expect(try await http.post("/v1/auth/password/reset", ["email": .string(email), "code": .string(code), "newPassword": .string(newPassword)]).status == 400,
                    "a code works once")
            #expect(try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": "correct horse battery staple orla"]).status == 401)
            let login = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(newPassword)])
            let access = try #require(Self.string(login, "accessToken"))
            let auth = ["Authorization": "Bearer \(access)", "Content-Type": "application/json"]

            let renamed = try await http.send("PATCH", "/v1/me", body: Array(#"{"displayName":"Orla N.","username":"Orla_N"}"#.utf8), headers: auth)
            #expect(renamed.status == 200 && renamed.json?["username"] == "orla_n" && renamed.json?["displayName"] == "Orla N.", "\(renamed.text)")
            let empty = try await http.send("PATCH", "/v1/me", body: Array("{}".utf8), headers: auth)
            #expect(empty.status == 400, "\(empty.text)")

            let mailsLeft = "SELECT count(*)::int FROM pdf_email.mails WHERE '\(email)' = ANY(recipients)"
            #expect(try await TestDatabase.integer(mailsLeft, on: stack.databaseURL) == 2, "the sign-up and reset codes")
            let wrong = try await http.send("DELETE", "/v1/me", body: Array(#"{"password":"not it"}"#.utf8), headers: auth)
            #expect(wrong.status == 400 && Self.fields(wrong) == ["password"], "\(wrong.text)")
            let deleted = try await http.send("DELETE", "/v1/me", body: Array(#"{"password":"\#(newPassword)"}"#.utf8), headers: auth)
            #expect(deleted.status == 200 && deleted.json == ["deleted": true], "\(deleted.text)")
            #expect(try await http.send("GET", "/v1/me", headers: auth).status == 401, "a deleted account's token stops working")
            #expect(try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(newPassword)]).status == 401)
            // pdf-email heard through auth's outbox and erased the mail that went to the address.
            let erased = await eventually(timeout: .seconds(20)) { try await TestDatabase.integer(mailsLeft, on: stack.databaseURL) == 0 }
            #expect(erased, "the deleted account's mail is gone")
            // The username is free again.
            _ = try await Self.signedUp(stack, http, email: "orla.again@example.org", username: "orla_n")
        }
    }

    // MARK: - Helpers

    /// Registers, verifies and logs in an account; returns its tokens.
    /// A new account signed in: registered (with `more` fields), verified and logged in.
    static func signedUp(
        _ stack: AuthStack, _ http: HTTPTestClient, email: String, username: String, more: [String: JSONValue] = [:], app: String = "melon"
    ) async throws
        -> (access: String, refresh: String)
    {
        let password = "correct horse battery staple \(username)"
        let fields: [String: JSONValue] = [
            "email": .string(email), "password": .string(password), "displayName": .string(username.capitalized), "username": .string(username),
        ]
        let registered = try await http.post("/v1/auth/register", .object(fields.merging(more) { $1 }))
        try #require(registered.status == 202, "\(registered.text)")
        let code = try await stack.code(for: email), attempt = try #require(string(registered, "registration"))
        let verified = try await http.post("/v1/auth/verify-email", ["email": .string(email), "code": .string(code), "registration": .string(attempt)])
        try #require(verified.status == 200, "\(verified.text)")
        let login = try await http.post("/v1/auth/login", ["app": .string(app), "email": .string(email), "password": .string(password)])
        return (try #require(string(login, "accessToken")), try #require(string(login, "refreshToken")))
    }

    static func claims(of token: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(base64URL: String(token.split(separator: ".")[1]))!) as! [String: Any]
    }

    static func header(of token: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(base64URL: String(token.split(separator: ".")[0]))!) as! [String: Any]
    }

    static func base64URL(_ data: Data) -> String { data.base64URLEncodedString() }
}
}
