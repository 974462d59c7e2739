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
            let padded = try await http.post("/v1/auth/login", ["email": "mei@tcd.ie", "password": .string(password + "\u{0}zz")])
            #expect(padded.status == 401, "\(padded.text)")
            #expect(try await http.post("/v1/auth/login", ["email": "mei@tcd.ie", "password": .string(password)]).status == 200)

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
            // A verified account used to answer 200 to any code, telling a stranger the address is taken.
            let taken = try await http.post("/v1/auth/verify-email", ["email": "mei@tcd.ie", "code": "123456"])
            let free = try await http.post("/v1/auth/verify-email", ["email": "nobody@tcd.ie", "code": "123456"])
            #expect(taken.status == 400 && free.status == 400, "\(taken.text) / \(free.text)")
            #expect(taken.json?["fields"] == free.json?["fields"] && taken.json?["detail"] == free.json?["detail"])
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
