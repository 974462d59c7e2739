import AuthService
import Envelope
import Foundation
import Testing
import TestSupport

/// Codes and sessions through the gateway, by their rules: a code's lifetime, its five wrong
/// guesses, the resend interval; logging out everywhere, a refresh token's expiry, the re-hash of an
/// older password hash at login.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(3))) struct AuthCodeAndSessionTests {
    @Test func aCodeExpiresSurvivesFiveWrongGuessesAndANewOneComesOnlyAfterTheInterval() async throws {
        let stack = try await AuthStack(authEnvironment: [
            "AUTH_CODE_LIFETIME": "4000", "AUTH_CODE_RESEND_INTERVAL": "1500", "AUTH_ATTEMPTS_PER_ACCOUNT": "1000",
        ], movingTime: true)
        try await stack.with { http in
            let email = "fiadh@tcd.ie"
            let registered = try await http.post("/v1/auth/register", [
                "email": .string(email), "password": "correct horse battery staple", "displayName": "Fiadh", "username": "fiadh",
            ])
            let attempt = try #require(AuthJourneyTests.string(registered, "registration"))
            func verify(_ code: String) async throws -> HTTPTestClient.Reply {
                try await http.post("/v1/auth/verify-email", ["email": .string(email), "code": .string(code), "registration": .string(attempt)])
            }
            func resend() async throws -> HTTPTestClient.Reply {
                try await http.post("/v1/auth/verify-email/resend", ["email": .string(email), "registration": .string(attempt)])
            }
            let first = try await stack.code(for: email)

            // Within the interval a resend is answered alike and mails nothing; after it, a new code
            // that replaces the first.
            // A code is mailed through auth's outbox, written with the reply: nothing there, nothing to come.
            let mails = "SELECT count(*)::int FROM auth.outbox WHERE service = 'pdf-email'"
            #expect(try await TestDatabase.integer(mails, on: stack.databaseURL) == 1)
            #expect(try await resend().status == 202)
            #expect(try await TestDatabase.integer(mails, on: stack.databaseURL) == 1, "no second code within the interval")
            stack.clock.advance(.milliseconds(1600))
            #expect(try await resend().status == 202)
            let second = try await stack.code(for: email, after: 1)
            #expect(try await verify(first).status == 400, "the new code replaced the first")

            // Five wrong guesses spend a code: the right one is refused after them.
            let wrong = String(format: "%06d", (Int(second)! + 1) % 1_000_000)
            for _ in 1...5 { #expect(try await verify(wrong).status == 400) }
            let spent = try await verify(second)
            #expect(spent.status == 400 && AuthJourneyTests.string(spent, "detail")?.contains("too many wrong attempts") == true, "\(spent.text)")

            // A code past its lifetime is refused; a fresh one verifies.
            stack.clock.advance(.milliseconds(1600))
            #expect(try await resend().status == 202)
            let third = try await stack.code(for: email, after: 2)
            stack.clock.advance(.milliseconds(4200))
            #expect(try await verify(third).status == 400, "expired")
            #expect(try await resend().status == 202)
            let fourth = try await stack.code(for: email, after: 3)
            let verified = try await verify(fourth)
            #expect(verified.status == 200, "\(verified.text)")
        }
    }

    @Test func loggingOutEverywhereEndsEverySessionAndARefreshTokenExpires() async throws {
        let stack = try await AuthStack(authEnvironment: ["AUTH_REFRESH_TOKEN_LIFETIME": "3000"], movingTime: true)
        try await stack.with { http in
            let email = "darragh@tcd.ie", password = "correct horse battery staple darragh"
            let phone = try await AuthJourneyTests.signedUp(stack, http, email: email, username: "darragh")
            let laptop = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)])
            let laptopRefresh = try #require(AuthJourneyTests.string(laptop, "refreshToken"))
            let ended = try await http.post("/v1/auth/logout", ["all": true], token: phone.access)
            #expect(ended.status == 200 && ended.json == ["ended": 2], "\(ended.text)")
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(phone.refresh)]).status == 401)
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(laptopRefresh)]).status == 401)

            // A refresh token unused for its lifetime is refused, and its owner can see that.
            let login = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)])
            let refresh = try #require(AuthJourneyTests.string(login, "refreshToken"))
            stack.clock.advance(.milliseconds(3200))
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(refresh)]).status == 401, "expired")
            let again = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)])
            let access = try #require(AuthJourneyTests.string(again, "accessToken"))
            let record = try await http.get("/v1/me/security-events?limit=2", headers: ["Authorization": "Bearer \(access)"])
            guard case .array(let events)? = record.json?["events"] else { Issue.record("\(record.text)"); return }
            #expect(events.last?["kind"] == "refresh_token_refused" && events.last?["detail"] == "expired", "\(record.text)")
        }
    }

    @Test func aRotatedKeySignsNewTokensAndTheRetiredKeyLeavesTheJWKSOnceItsTokensHaveExpired() async throws {
        let stack = try await AuthStack(authEnvironment: ["AUTH_ACCESS_TOKEN_LIFETIME": "3000", "AUTH_KEY_CACHE": "200"], movingTime: true)
        try await stack.with { http in
            func published() async throws -> [String] {
                guard case .array(let keys)? = try await http.get("/.well-known/jwks.json").json?["keys"] else { return [] }
                return keys.compactMap { if case .string(let kid)? = $0["kid"] { kid } else { nil } }
            }
            let email = "fiadh@tcd.ie", password = "correct horse battery staple fiadh"
            let old = try await AuthJourneyTests.signedUp(stack, http, email: email, username: "fiadh").access
            let oldKid = try #require(AuthJourneyTests.header(of: old)["kid"] as? String)
            #expect(try await published() == [oldKid])

            // The key is past AUTH_KEY_ROTATION (30 days): the next token, once the key cache turned over, has a new one.
            try await TestDatabase.run("UPDATE auth.signing_keys SET created_at = created_at - interval '31 days'", on: stack.databaseURL)
            stack.clock.advance(.milliseconds(300))
            let login = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)])
            let new = try #require(AuthJourneyTests.string(login, "accessToken"))
            let newKid = try #require(AuthJourneyTests.header(of: new)["kid"] as? String)
            #expect(newKid != oldKid)
            #expect(try await published() == [newKid, oldKid], "the retired key stays while its tokens may live")
            #expect(try await http.get("/v1/me", headers: ["Authorization": "Bearer \(new)"]).status == 200, "the gateway fetches the new key")

            // Past the old key's last token (3 s) and the key cache (0.2 s), on auth's and the gateway's
            // clock: only the new key is published.
            stack.clock.advance(.milliseconds(3500))
            #expect(try await published() == [newKid], "the retired key left the JWKS")
            #expect(try await http.get("/v1/me", headers: ["Authorization": "Bearer \(old)"]).status == 401)
        }
    }

    @Test func aPasswordHashedWithOlderParametersIsHashedAgainAtLogin() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            let email = "ronan@tcd.ie", password = "correct horse battery staple ronan"
            _ = try await AuthJourneyTests.signedUp(stack, http, email: email, username: "ronan")
            let weaker = try await PasswordHasher(parameters: .init(memoryKiB: 8 * 1024, iterations: 1, parallelism: 1)).hash(password)
            try await TestDatabase.run("UPDATE auth.accounts SET password_hash = '\(weaker)' WHERE email = '\(email)'", on: stack.databaseURL)
            #expect(try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)]).status == 200)
            let current = "SELECT count(*)::int FROM auth.accounts WHERE email = '\(email)' AND password_hash LIKE '$argon2id$v=19$m=19456,t=2,p=1$%'"
            #expect(try await TestDatabase.integer(current, on: stack.databaseURL) == 1, "re-hashed with today's parameters")
            #expect(try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)]).status == 200, "and it still logs in")
        }
    }
}
}
