import Envelope
import Foundation
import Testing
import TestSupport

/// Holes in auth read as an attacker would (issue 18), each closed and driven through the gateway.
extension ServiceStackTests {
@Suite(.timeLimit(.minutes(3))) struct AuthHardeningTests {
    @Test func aPasswordIsItsEveryByteAndNamesRefuseInvisibleCharacters() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            _ = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "mei@tcd.ie", username: "mei")
            let password = "correct horse battery staple mei"
            // A NUL byte used to end what Argon2 hashed: the password followed by anything logged in.
            let padded = try await http.post("/v1/auth/login", ["app": "melon", "email": "mei@tcd.ie", "password": .string(password + "\u{0}zz")])
            #expect(padded.status == 401, "\(padded.text)")
            #expect(try await http.post("/v1/auth/login", ["app": "melon", "email": "mei@tcd.ie", "password": .string(password)]).status == 200)

            // New passwords refuse control characters; names refuse format and separator characters
            // (U+202E turns the rest of a name around on screen), which used to pass.
            let withNUL = try await http.post("/v1/auth/register", [
                "email": "conor@tcd.ie", "password": "a long pass\u{0}phrase", "displayName": "Conor", "username": "conor",
            ])
            #expect(withNUL.status == 400 && TaxFormPreviewTests.first(withNUL.json?["fields"])?["field"] == "password", "\(withNUL.text)")
            for name in ["Conor\u{202E}rekah", "Con\u{2028}or", "Con\u{200B}or"] {
                let reply = try await http.post("/v1/auth/register", [
                    "email": "conor@tcd.ie", "password": "a long pass phrase", "displayName": .string(name), "username": "conor",
                ])
                #expect(reply.status == 400 && TaxFormPreviewTests.first(reply.json?["fields"])?["field"] == "displayName", "\(name.unicodeScalars.map { String($0.value, radix: 16) }): \(reply.text)")
            }
        }
    }

    @Test func verifyingAnAddressAnswersTheSameWhetherOrNotItHasAnAccount() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            _ = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "mei@tcd.ie", username: "mei")
            // A verified account used to answer 200 to any code, telling a stranger the address is
            // taken. Registering it again names an attempt, as for a new address; neither verifies.
            func attempt(_ email: String, _ username: String) async throws -> String {
                let registered = try await http.post("/v1/auth/register", [
                    "email": .string(email), "password": "a long pass phrase", "displayName": "Someone", "username": .string(username),
                ])
                #expect(registered.status == 202, "\(registered.text)")
                return try #require(ServiceStackTests.AuthJourneyTests.string(registered, "registration"))
            }
            let (takenAttempt, freeAttempt) = (try await attempt("mei@tcd.ie", "meitoo"), try await attempt("nobody@tcd.ie", "nobody"))
            let taken = try await http.post("/v1/auth/verify-email", ["email": "mei@tcd.ie", "code": "123456", "registration": .string(takenAttempt)])
            let free = try await http.post("/v1/auth/verify-email", ["email": "nobody@tcd.ie", "code": "123456", "registration": .string(freeAttempt)])
            #expect(taken.status == 400 && free.status == 400, "\(taken.text) / \(free.text)")
            #expect(taken.json?["fields"] == free.json?["fields"] && taken.json?["detail"] == free.json?["detail"])
        }
    }

    @Test func aSecondRegistrationOfAPendingAddressCannotTakeItOver() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            let email = "aoife@tcd.ie", mine = "aoife's own long passphrase", theirs = "the attacker's long passphrase"
            let owner = try await http.post("/v1/auth/register", [
                "email": .string(email), "password": .string(mine), "displayName": "Aoife", "username": "aoife",
            ])
            #expect(owner.status == 202, "\(owner.text)")
            let ownAttempt = try #require(ServiceStackTests.AuthJourneyTests.string(owner, "registration"))
            let code = try await stack.code(for: email)
            // A stranger registers the same address before the owner enters the code. It used to
            // replace the password, and the owner's code then verified the stranger's credentials.
            let stranger = try await http.post("/v1/auth/register", [
                "email": .string(email), "password": .string(theirs), "displayName": "Not Aoife", "username": "notaoife",
            ])
            #expect(stranger.status == 202, "\(stranger.text)")
            // The code mailed for the stranger's attempt (the newest mail) does not verify the owner's.
            let strangersCode = try await stack.code(for: email, after: 1)
            let crossed = try await http.post("/v1/auth/verify-email", [
                "email": .string(email), "code": .string(strangersCode), "registration": .string(ownAttempt),
            ])
            #expect(crossed.status == 400, "\(crossed.text)")
            let verified = try await http.post("/v1/auth/verify-email", ["email": .string(email), "code": .string(code), "registration": .string(ownAttempt)])
            #expect(verified.status == 200, "\(verified.text)")
            // The address is the owner's now: the stranger's attempt went with the verification.
            let strangersAttempt = try #require(ServiceStackTests.AuthJourneyTests.string(stranger, "registration"))
            let late = try await http.post("/v1/auth/verify-email", [
                "email": .string(email), "code": .string(strangersCode), "registration": .string(strangersAttempt),
            ])
            #expect(late.status == 400, "\(late.text)")
            #expect(try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(theirs)]).status == 401)
            let login = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(mine)])
            #expect(login.status == 200, "the owner's credentials: \(login.text)")
        }
    }

    @Test func aTakenUsernameIsAnsweredTheSameWhetherOrNotTheAddressHasAnAccount() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            _ = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "mei@tcd.ie", username: "mei")
            // With the username taken, an address with an account used to get 202 and a free one 409.
            let taken = try await http.post("/v1/auth/register", [
                "email": "mei@tcd.ie", "password": "a long pass phrase", "displayName": "Mei", "username": "mei",
            ])
            let free = try await http.post("/v1/auth/register", [
                "email": "nobody@tcd.ie", "password": "a long pass phrase", "displayName": "Mei", "username": "mei",
            ])
            #expect(taken.status == free.status && taken.json?["fields"] == free.json?["fields"] && taken.json?["detail"] == free.json?["detail"],
                    "\(taken.text) / \(free.text)")
            #expect(free.status == 409)
        }
    }

    @Test func aRefreshRepeatedInTheGraceWindowGetsTheSameChildAndASessionHasAnEnd() async throws {
        let stack = try await AuthStack(authEnvironment: ["AUTH_REFRESH_GRACE": "5000", "AUTH_SESSION_LIFETIME": "4000"], movingTime: true)
        try await stack.with { http in
            let tokens = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: "rua@tcd.ie", username: "rua")
            // Three tabs refresh with one token at once: each used to get a live sibling of its own.
            let replies = try await withThrowingTaskGroup(of: HTTPTestClient.Reply.self) { group in
                for _ in 0..<3 { group.addTask { try await http.post("/v1/auth/refresh", ["refreshToken": .string(tokens.refresh)]) } }
                var replies: [HTTPTestClient.Reply] = []
                for try await reply in group { replies.append(reply) }
                return replies
            }
            #expect(replies.allSatisfy { $0.status == 200 }, "\(replies.map(\.text))")
            let children = Set(replies.compactMap { ServiceStackTests.AuthJourneyTests.string($0, "refreshToken") })
            #expect(children.count == 1, "one child, handed to each: \(children.count)")
            let child = try #require(children.first)
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(child)]).status == 200)

            // However often it is refreshed, a session ends AUTH_SESSION_LIFETIME after the login.
            let login = try await http.post("/v1/auth/login", ["app": "melon", "email": "rua@tcd.ie", "password": "correct horse battery staple rua"])
            var refresh = try #require(ServiceStackTests.AuthJourneyTests.string(login, "refreshToken"))
            for _ in 0..<2 {
                stack.clock.advance(.milliseconds(1500))
                let rotated = try await http.post("/v1/auth/refresh", ["refreshToken": .string(refresh)])
                #expect(rotated.status == 200, "\(rotated.text)")
                refresh = try #require(ServiceStackTests.AuthJourneyTests.string(rotated, "refreshToken"))
            }
            stack.clock.advance(.milliseconds(1500))
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(refresh)]).status == 401, "4.5 s after the login")
        }
    }

    @Test func wrongPasswordsElsewhereNeverLockTheOwnerOutAndConcurrentGuessesAreCountedFirst() async throws {
        let stack = try await AuthStack(authEnvironment: [
            "AUTH_ATTEMPTS_PER_ACCOUNT": "3", "AUTH_ATTEMPTS_PER_ACCOUNT_ALL": "6", "AUTH_ATTEMPTS_PER_IP": "1000", "AUTH_BACKOFF_FIRST": "30000",
        ])
        try await stack.with { http in
            // The owner signs up and logs in from where they usually are (the test's own address).
            let email = "ciara@tcd.ie", password = "correct horse battery staple ciara"
            _ = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: email, username: "ciara")
            func login(_ password: String, from ip: String? = nil) async throws -> HTTPTestClient.Reply {
                try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)], from: ip)
            }
            // Eight wrong passwords at once from one network: each used to pass the one check before
            // any was counted. Now each is counted first: 3 free and the one that starts the block.
            let guesses = try await withThrowingTaskGroup(of: Int.self) { group in
                for n in 0..<8 { group.addTask { try await login("guess \(n)", from: "203.0.113.1").status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(guesses.filter { $0 == 401 }.count == 4 && guesses.filter { $0 == 429 }.count == 4, "\(guesses.sorted())")
            #expect(try await login(password, from: "203.0.113.1").status == 429, "that network waits")
            #expect(try await login(password).status == 200, "the owner, elsewhere, is not locked out")

            // Guesses spread over networks add up for the account: past 6, a network it has never
            // logged in from waits too, while the owner's usual one does not.
            for n in 2...4 { #expect(try await login("guess", from: "203.0.113.\(n)").status == 401) }
            #expect(try await login(password, from: "203.0.113.9").status == 429, "a new network, the account under attack")
            #expect(try await login(password).status == 200, "the owner's usual network")

            // Reset mail: a stranger asking again and again holds up only their own network's, and
            // the owner, asking meanwhile, has a fresh code in their mailbox (the one the stranger's
            // first request sent them, or their own: one code a minute per account).
            let mails = try stack.mailCount(to: email)
            for _ in 0..<5 { _ = try await http.post("/v1/auth/password/forgot", ["email": .string(email)], from: "203.0.113.1") }
            #expect(try await http.post("/v1/auth/password/forgot", ["email": .string(email)], from: "203.0.113.1").status == 429)
            #expect(try await http.post("/v1/auth/password/forgot", ["email": .string(email)]).status == 202)
            #expect(await eventually(timeout: .seconds(20)) { try stack.mailCount(to: email) > mails }, "the owner gets a reset code")
        }
    }

    /// Logins of one account from one network at once (a family's devices, a client retrying): each
    /// is counted, then taken off the counts when it succeeds, on the same rows. They used to take
    /// the rows' locks in opposite orders and deadlock, answering 500.
    @Test func concurrentLoginsOfOneAccountNeverDeadlock() async throws {
        let stack = try await AuthStack(authEnvironment: ["AUTH_ATTEMPTS_PER_ACCOUNT": "1000", "AUTH_ATTEMPTS_PER_ACCOUNT_ALL": "1000"])
        try await stack.with { http in
            let email = "eimear@tcd.ie"
            _ = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: email, username: "eimear")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        try await http.post("/v1/auth/login", [
                            "app": "melon", "email": .string(email), "password": "correct horse battery staple eimear",
                        ], from: "203.0.113.50").status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses.sorted())")
        }
    }

    @Test func blocksRefusedTokensAndReuseAreListedToTheOwnerAndCounted() async throws {
        let healthPort = Ports.free()
        let stack = try await AuthStack(authEnvironment: [
            "AUTH_ATTEMPTS_PER_ACCOUNT": "2", "AUTH_ATTEMPTS_PER_IP": "1000", "AUTH_REFRESH_GRACE": "0", "HEALTH_PORT": "\(healthPort)",
        ])
        try await stack.with { http in
            let email = "eabha@tcd.ie", password = "correct horse battery staple eabha"
            let first = try await ServiceStackTests.AuthJourneyTests.signedUp(stack, http, email: email, username: "eabha")
            for n in 1...3 {
                _ = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string("guess \(n)")], from: "198.51.100.23")
            }
            // A session that ended (logged out) and a replayed token: both refused, both recorded.
            #expect(try await http.post("/v1/auth/logout", [:], token: first.access).status == 200)
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(first.refresh)]).status == 401)
            let login = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)])
            let refresh = try #require(ServiceStackTests.AuthJourneyTests.string(login, "refreshToken"))
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(refresh)]).status == 200)
            #expect(try await http.post("/v1/auth/refresh", ["refreshToken": .string(refresh)]).status == 401)

            let second = try await http.post("/v1/auth/login", ["app": "melon", "email": .string(email), "password": .string(password)])
            let token = try #require(ServiceStackTests.AuthJourneyTests.string(second, "accessToken"))
            let record = try await http.get("/v1/me/security-events", headers: ["Authorization": "Bearer \(token)"])
            guard case .array(let events)? = record.json?["events"] else { Issue.record("\(record.text)"); return }
            let seen = events.compactMap { event -> String? in
                guard case .string(let kind)? = event["kind"] else { return nil }
                if case .string(let detail)? = event["detail"] { return "\(kind):\(detail)" }
                return kind
            }
            #expect(seen.contains("blocked:login"), "\(seen)")
            #expect(seen.contains("refresh_token_refused:session_ended") && seen.contains("refresh_token_reused"), "\(seen)")
            #expect(events.first { $0["kind"] == "blocked" }?["ip"] == "198.51.100.23", "where the guesses came from")

            let metrics = try await HTTPTestClient(base: URL(string: "http://127.0.0.1:\(healthPort)")!).get("/metrics").text
            for line in [#"melon_auth_blocks_total{action="login",scope="account-network"}"#, #"melon_auth_security_events_total{kind="blocked"}"#,
                         #"melon_auth_security_events_total{kind="refresh_token_refused"}"#, #"melon_auth_security_events_total{kind="refresh_token_reused"}"#] {
                #expect(metric(line, in: metrics) == 1, "\(line) in \(metrics.split(separator: "\n").filter { $0.contains("melon_auth") })")
            }
        }
    }

    @Test func registrationsRacingForOneUsernameGetOneAccountAndConflictsNeverAnError() async throws {
        let stack = try await AuthStack()
        try await stack.with { http in
            // Four devices register different addresses with one username at the same moment: each
            // saw the name free, and all but one insert used to fail on the unique index with a 500.
            let replies = try await withThrowingTaskGroup(of: HTTPTestClient.Reply.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        try await http.post("/v1/auth/register", [
                            "email": .string("racer\(index)@tcd.ie"), "password": "a long pass phrase", "displayName": "Racer", "username": "racer",
                        ])
                    }
                }
                var replies: [HTTPTestClient.Reply] = []
                for try await reply in group { replies.append(reply) }
                return replies
            }
            #expect(replies.map(\.status).sorted() == [202, 409, 409, 409], "\(replies.map(\.text))")
            #expect(replies.filter { $0.status == 409 }.allSatisfy { TaxFormPreviewTests.first($0.json?["fields"])?["field"] == "username" })
        }
    }
}
}
