import AuthContract
import AccessTokens
import Bus
import Contracts
import Envelope
import Foundation
import GatewayService
import Hummingbird
import Logging
import Synchronization
import Testing
import TestSupport

/// The gateway's token check asks the auth service for keys once, however many requests arrive at
/// once, and not again for a token naming an unknown key moments later.
@Suite(.timeLimit(.minutes(10))) struct JWKSAuthenticatorTests {
    @Test func aBurstOfSignedInRequestsFetchesTheKeysOnce() async throws {
        let key = SigningKey.generate()
        let fetches = Atomic<Int>(0)
        var registry = OperationRegistry(service: Auth.name)
        registry.register(Auth.Keys.Jwks.self) { _, _ in
            fetches.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(200))  // a slow answer: the burst piles up behind it
            let jwk = try key.jwk()
            return .init(keys: [.init(kid: key.kid, x: jwk.x ?? "", y: jwk.y ?? "")])
        }
        let broker = try BusHarness.broker()
        let keysWorker = try WorkerRuntime(
            registry: registry, configuration: WorkerConfiguration(endpoint: broker.endpoint, workers: 4, heartbeat: BusHarness.fastHeartbeat),
            logger: Logger(label: "keys"))
        let client = try BusHarness.client(broker.endpoint)
        // A minute between refetches, so "moments later" holds however slow a loaded machine is.
        let authenticator = JWKSAuthenticator(
            bus: client, audience: "melon", issuer: "urn:melon:auth", logger: Logger(label: "gateway"), minimumRefetch: .seconds(60))
        func claims() -> AccessTokenClaims {
            AccessTokenClaims(subject: "acct", session: "sess", university: nil, roles: ["user"], app: "melon", audience: "melon", issuer: "urn:melon:auth",
                              issuedAt: Date(), expiresAt: Date().addingTimeInterval(60))
        }
        let token = try await AccessTokenSigner(current: key).sign(claims())
        let stranger = try await AccessTokenSigner(current: SigningKey.generate()).sign(claims())
        func request(_ token: String) -> Request {
            Request(head: .init(method: .get, scheme: "http", authority: "melon", path: "/v1/me", headerFields: [.authorization: "Bearer \(token)"]),
                    body: .init(buffer: ByteBuffer()))
        }

        try await BusHarness.with([broker, keysWorker, client]) {
            #expect(await BusHarness.waitForService(Auth.name, client: client))
            let callers = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<40 { group.addTask { try await authenticator.authenticate(request(token))?.id } }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(callers == Array(repeating: "acct", count: 40))
            #expect(fetches.load(ordering: .relaxed) == 1, "40 requests at once, one fetch")

            await #expect(throws: OperationError.self) { try await authenticator.authenticate(request(stranger)) }
            #expect(fetches.load(ordering: .relaxed) == 1, "an unknown key moments after a fetch does not fetch again")
        }
    }
}
