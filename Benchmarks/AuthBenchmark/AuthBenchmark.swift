import AccessTokens
import AuthService
import Foundation
import JWTKit

/// `auth-benchmark [--runs N]`: what bounds logins and token checks, in-process on this machine.
/// - Argon2id (m=19 MiB, t=2, p=1) hashes and verifications per second, 1 and 2 at a time: a login
///   costs one verification, a sign-up or a password change one hash.
/// - ES256 access-token verifications per second, 1 and 2 at a time: what the gateway does for
///   every signed-in request (header check, signature, claims).
@main
struct AuthBenchmark {
    static func main() async throws {
        let arguments = CommandLine.arguments
        let runs = arguments.firstIndex(of: "--runs").flatMap { Int(arguments[$0 + 1]) } ?? 3
        let hasher = PasswordHasher()
        let encoded = try await hasher.hash("a long walk by the Liffey")

        let key = SigningKey.generate()
        let token = try await AccessTokenSigner(current: key).sign(AccessTokenClaims(
            subject: "acct", session: "sess", university: "tcd", roles: ["user"], app: "melon", audience: "melon", issuer: "urn:melon:auth",
            issuedAt: Date(), expiresAt: Date().addingTimeInterval(900)))
        let verifier = try await AccessTokenVerifier(jwks: JWKS(keys: [try key.jwk()]), audience: "melon", issuer: "urn:melon:auth")

        let series: [(String, Int, Int, @Sendable () async throws -> Void)] = [
            ("argon2id hash", 1, 24, { _ = try await hasher.hash("a long walk by the Liffey") }),
            ("argon2id hash", 2, 24, { _ = try await hasher.hash("a long walk by the Liffey") }),
            ("argon2id verify (login)", 1, 24, { _ = try await hasher.verify("a long walk by the Liffey", against: encoded) }),
            ("argon2id verify (login)", 2, 24, { _ = try await hasher.verify("a long walk by the Liffey", against: encoded) }),
            ("ES256 token verify", 1, 4000, { _ = try await verifier.verify(token) }),
            ("ES256 token verify", 2, 4000, { _ = try await verifier.verify(token) }),
        ]
        print("series | at once | per second, median of \(runs) [each run]")
        for (name, concurrency, operations, body) in series {
            var rates: [Double] = []
            for _ in 0..<runs { rates.append(try await rate(operations: operations, concurrency: concurrency, body)) }
            let median = rates.sorted()[rates.count / 2]
            print("\(name) | \(concurrency) | \(Int(median.rounded())) \(rates.map { Int($0.rounded()) })")
        }
    }

    /// Operations per second when `concurrency` tasks share `operations` calls of `body`.
    static func rate(operations: Int, concurrency: Int, _ body: @escaping @Sendable () async throws -> Void) async throws -> Double {
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for _ in stride(from: worker, to: operations, by: concurrency) { try await body() }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = started.duration(to: .now)
        return Double(operations) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
