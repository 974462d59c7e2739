import Envelope
import Foundation
import Testing
import TestSupport

/// Rate limits on login, codes, code mail and refresh through the gateway: they trigger, grow, and
/// lift again; unknown emails are limited like known ones. (How they spare the owner elsewhere is
/// in `AuthHardeningTests`.)
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(10))) struct AuthLimitTests {
    static func retryAfter(_ reply: HTTPTestClient.Reply) -> Int? {
        reply.header("Retry-After").flatMap { Int($0) }
    }

    static func expectLimited(_ reply: HTTPTestClient.Reply, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 429, comment, sourceLocation: sourceLocation)
        #expect(reply.json?["code"] == "rate_limited", "\(reply.text)", sourceLocation: sourceLocation)
        #expect((retryAfter(reply) ?? 0) >= 1, "Retry-After: \(reply.headers)", sourceLocation: sourceLocation)
        #expect(reply.json?["retryAfter"] == retryAfter(reply).map { .number(Double($0)) }, "the body says it too", sourceLocation: sourceLocation)
    }

    @Test func failedLoginsBackOffPerAccountLongerEachTimeAndLiftAfterwards() async throws {
        let stack = try await AuthStack(authEnvironment: [
            "AUTH_ATTEMPTS_PER_ACCOUNT": "3", "AUTH_ATTEMPTS_PER_IP": "1000", "AUTH_BACKOFF_FIRST": "3000", "AUTH_BACKOFF_MAX": "60000",
        ], movingTime: true)
        try await stack.with { http in
            let email = "saoirse@tcd.ie", password = "correct horse battery staple saoirse"
            _ = try await AuthJourneyTests.signedUp(stack, http, email: email, username: "saoirse")
            func login(_ password: String, as email: String = email, from ip: String = "198.51.100.1") async throws -> HTTPTestClient.Reply {
                try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)], from: ip)
            }
            for attempt in 1...4 {
                #expect(try await login("wrong \(attempt)").status == 401, "attempt \(attempt) is counted and answered as usual")
            }
            let blocked = try await login(password)
            Self.expectLimited(blocked, "past 3 free failures even the right password waits")
            let elsewhere = try await login(password, from: "203.0.113.77")
            #expect(elsewhere.status == 200, "the block holds that network, not the owner elsewhere: \(elsewhere.text)")

            // The same for an email without an account: nothing tells the two apart.
            for attempt in 1...4 {
                #expect(try await login("guess \(attempt)", as: "nobody@tcd.ie").status == 401)
            }
            Self.expectLimited(try await login("guess 5", as: "nobody@tcd.ie"), "unknown emails are limited alike")

            stack.clock.advance(.seconds(Self.retryAfter(blocked) ?? 3))
            #expect(try await login("wrong 5").status == 401, "the block lifted; this failure counts again")
            let longer = try await login(password)
            Self.expectLimited(longer, "blocked again")
            #expect((Self.retryAfter(longer) ?? 0) > (Self.retryAfter(blocked) ?? 0), "the second block is longer: \(longer.headers)")

            stack.clock.advance(.seconds(Self.retryAfter(longer) ?? 6))
            #expect(try await login(password).status == 200, "the block lifted")
            #expect(try await login("wrong again").status == 401, "a success starts the count afresh")
            #expect(try await login(password).status == 200)
        }
    }

    @Test func wrongCodesAndCodeMailAreLimitedPerAccount() async throws {
        let stack = try await AuthStack(authEnvironment: [
            "AUTH_ATTEMPTS_PER_ACCOUNT": "3", "AUTH_ATTEMPTS_PER_IP": "1000", "AUTH_BACKOFF_FIRST": "3000",
        ], movingTime: true)
        try await stack.with { http in
            let email = "oisin@ucd.ie"
            let registered = try await http.post("/v1/auth/register", [
                "email": .string(email), "password": "correct horse battery staple", "displayName": "Oisín", "username": "oisin",
            ])
            #expect(registered.status == 202)
            let attempt = try #require(AuthJourneyTests.string(registered, "registration"))
            let code = try await stack.code(for: email)
            let wrong = String(format: "%06d", (Int(code)! + 1) % 1_000_000)
            for _ in 1...4 {
                #expect(try await http.post("/v1/auth/verify-email", ["email": .string(email), "code": .string(wrong), "registration": .string(attempt)]).status == 400)
            }
            let blocked = try await http.post("/v1/auth/verify-email", ["email": .string(email), "code": .string(code), "registration": .string(attempt)])
            Self.expectLimited(blocked, "past 3 wrong codes the right one waits too")
            stack.clock.advance(.seconds(Self.retryAfter(blocked) ?? 3))
            #expect(try await http.post("/v1/auth/verify-email", ["email": .string(email), "code": .string(code), "registration": .string(attempt)]).status == 200)

            // Code mail: the registration counted once, two more requests are free, the one after
            // them is answered but starts a block, and then nothing is sent until it lifts.
            for _ in 1...3 {
                #expect(try await http.post("/v1/auth/password/forgot", ["email": .string(email)]).status == 202)
            }
            Self.expectLimited(try await http.post("/v1/auth/password/forgot", ["email": .string(email)]), "mail requests are limited")
            Self.expectLimited(try await http.post("/v1/auth/verify-email/resend", ["email": .string(email), "registration": .string(attempt)]), "resend shares the mail limit")
        }
    }

    @Test func oneAddressIsLimitedAcrossAccountsAndIPv6CountsPer64() async throws {
        let stack = try await AuthStack(authEnvironment: [
            "AUTH_ATTEMPTS_PER_ACCOUNT": "1000", "AUTH_ATTEMPTS_PER_IP": "3", "AUTH_BACKOFF_FIRST": "20000",
        ])
        try await stack.with { http in
            for n in 1...4 {
                let reply = try await http.post(
                    "/v1/auth/login", ["app": "melon", "email": .string("student\(n)@tcd.ie"), "password": "not it at all"], from: "2001:db8:1:2::\(n)")
                #expect(reply.status == 401)
            }
            Self.expectLimited(
                try await http.post("/v1/auth/login", ["app": "melon", "email": "student5@tcd.ie", "password": "not it at all"], from: "2001:db8:1:2:ffff::9"),
                "the same /64, another account")
            let elsewhere = try await http.post("/v1/auth/login", ["app": "melon", "email": "student5@tcd.ie", "password": "not it at all"], from: "2001:db8:1:3::1")
            #expect(elsewhere.status == 401, "another network is not blocked: \(elsewhere.text)")

            for n in 1...4 {
                #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string("stolen-\(n)")], from: "192.0.2.10").status == 401)
            }
            Self.expectLimited(try await http.post("/v1/auth/refresh", ["refreshToken": "stolen-5"], from: "192.0.2.10"), "refresh guesses per IP")
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": "stolen-5"], from: "192.0.2.11").status == 401)
        }
    }
}
}
