@testable import AuthService
import Foundation
import Testing

/// Argon2id through libargon2: PHC strings, verification, and re-hashing when the parameters change.
@Suite(.timeLimit(.minutes(2))) struct PasswordHasherTests {
    let hasher = PasswordHasher()

    @Test func aHashIsAnArgon2idPHCStringWithTheOWASPParameters() async throws {
        let encoded = try await hasher.hash("correct horse battery staple")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(PasswordHasher.parameters(of: encoded) == .owasp)
        #expect(try await hasher.hash("correct horse battery staple") != encoded, "a fresh salt each time")
    }

    @Test func theRightPasswordVerifiesAndOthersDoNot() async throws {
        let encoded = try await hasher.hash("Pässwörd with ünïcode ✓")
        #expect(try await hasher.verify("Pässwörd with ünïcode ✓", against: encoded))
        #expect(try await hasher.verify("Pässwörd with ünïcode ✗", against: encoded) == false)
        #expect(try await hasher.verify("", against: encoded) == false)
    }

    @Test func aKnownVectorFromTheReferenceImplementationVerifies() async throws {
        // `echo -n password | argon2 somesalt -id -t 2 -m 16 -p 1 -e` (the reference CLI, m=64 MiB).
        let reference = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"
        #expect(try await hasher.verify("password", against: reference))
        #expect(hasher.needsRehash(reference), "made with other parameters: re-hash at login")
        // `echo -n Pässwörd | argon2 saltsaltsalt -id -t 2 -k 19456 -p 1 -l 32 -e`: the OWASP parameters.
        let current = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$mrMxPtCODpEWm3XJuRC2RShkJZ1ymBtczcrPlB0sYKY"
        #expect(try await hasher.verify("Pässwörd", against: current))
        #expect(try await hasher.verify("Passwörd", against: current) == false)
        #expect(!hasher.needsRehash(current))
    }

    @Test func hashesWithOtherParametersOrAlgorithmsNeedARehash() async throws {
        let weak = PasswordHasher(parameters: .init(memoryKiB: 8 * 1024, iterations: 1, parallelism: 1))
        let old = try await weak.hash("secret password")
        #expect(hasher.needsRehash(old))
        #expect(!weak.needsRehash(old))
        #expect(try await hasher.verify("secret password", against: old), "old hashes still verify")
        #expect(hasher.needsRehash("$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW"))
        #expect(hasher.needsRehash("not a hash"))
    }

    @Test func aMalformedStoredHashIsAnErrorNotAMatch() async throws {
        await #expect(throws: PasswordHasher.Failure.self) {
            try await hasher.verify("password", against: "$argon2id$v=19$m=19456,t=2,p=1$broken")
        }
    }
}
