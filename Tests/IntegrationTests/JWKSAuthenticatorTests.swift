import AuthContract
import AuthService
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
    /// A broker, an auth worker whose keys operation runs `answer`, and a bus client to fetch with.
    static func keysService(_ answer: @escaping @Sendable () async throws -> Auth.Keys.Jwks.Response) throws -> (Broker, WorkerRuntime, BusClient) {
        var registry = OperationRegistry(service: Auth.name)
        registry.register(Auth.Keys.Jwks.self) { _, _ in try await answer() }
        let broker = try BusHarness.broker()
        let worker = try WorkerRuntime(
            registry: registry, configuration: WorkerConfiguration(endpoint: broker.endpoint, workers: 4, heartbeat: BusHarness.fastHeartbeat),
            logger: Logger(label: "keys"))
        return (broker, worker, try BusHarness.client(broker.endpoint))
    }

    /// The JWKS of one key, as auth answers it.
    static func jwks(_ key: SigningKey) throws -> Auth.Keys.Jwks.Response { try .init(publishing: [key]) }

    @Test func aBurstOfSignedInRequestsFetchesTheKeysOnce() async throws {
        let key = SigningKey.generate()
        let fetches = Atomic<Int>(0)
        let (broker, keysWorker, client) = try Self.keysService {
            fetches.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(200))  // a slow answer: the burst piles up behind it
            return try Self.jwks(key)
        }
        // A minute between refetches, so "moments later" holds however slow a loaded machine is.
        let authenticator = JWKSAuthenticator(
            bus: client, revocations: nil, audience: "melon", issuer: "urn:melon:auth", logger: Logger(label: "gateway"), minimumRefetch: .seconds(60),
            maxKeyAge: .seconds(3600))
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

    /// Keys past their refresh interval are fetched behind the scenes while requests go on with the
    /// cached ones; a failing auth service is asked again only after a growing pause; keys older than
    /// the limit are not trusted any more (503) until a fetch succeeds.
    @Test func staleKeysRefreshBehindTheScenesFailuresBackOffAndTooOldKeysAreRefused() async throws {
        enum Mode { case answer, fail, slowlyFail }
        let key = SigningKey.generate()
        let mode = Mutex(Mode.answer), fetches = Atomic<Int>(0)
        let (broker, keysWorker, client) = try Self.keysService {
            fetches.add(1, ordering: .relaxed)
            switch mode.withLock({ $0 }) {
            case .answer: return try Self.jwks(key)
            case .fail: throw OperationError(.internal, "keys unavailable")
            case .slowlyFail:
                try await Task.sleep(for: .seconds(3))
                throw OperationError(.internal, "keys unavailable")
            }
        }
        // Key ages and back-offs are read on a clock that stands still but for the test's moves,
        // however long the steps take in real time on a loaded machine.
        let clock = MovableClock(stopped: true)
        let authenticator = JWKSAuthenticator(
            bus: client, revocations: nil, audience: "melon", issuer: "urn:melon:auth", logger: Logger(label: "gateway"),
            refreshInterval: .seconds(1), minimumRefetch: .milliseconds(50), maxKeyAge: .seconds(20), retryBackoff: .milliseconds(300),
            retryBackoffLimit: .seconds(1), clock: clock.clock)
        let token = try await AccessTokenSigner(current: key).sign(AccessTokenClaims(
            subject: "acct", session: "sess", university: nil, roles: ["user"], app: "melon", audience: "melon", issuer: "urn:melon:auth",
            issuedAt: Date(), expiresAt: Date().addingTimeInterval(60)))
        let request = Request(
            head: .init(method: .get, scheme: "http", authority: "melon", path: "/v1/me", headerFields: [.authorization: "Bearer \(token)"]),
            body: .init(buffer: ByteBuffer()))

        try await BusHarness.with([broker, keysWorker, client]) {
            #expect(await BusHarness.waitForService(Auth.name, client: client))
            #expect(try await authenticator.authenticate(request)?.id == "acct")
            let fetched = clock.instant()

            // A failing auth service once the keys are due (1 s): a second and a half of requests,
            // all served with the cached keys, ask it a few times (back-offs of 0.3, 0.6 and 1 s), not
            // once per request.
            mode.withLock { $0 = .fail }
            clock.advance(.milliseconds(1100))
            var served = 0
            for _ in 0..<150 {
                if try await authenticator.authenticate(request)?.id == "acct" { served += 1 }
                try await Task.sleep(for: .milliseconds(2))  // the fetch behind the scenes fails meanwhile
                clock.advance(.milliseconds(10))
            }
            let asked = fetches.load(ordering: .relaxed) - 1
            #expect(served == 150 && (1...5).contains(asked), "\(served) requests asked the failing service \(asked) times")

            // A slow auth service: a request does not wait for the fetch, the cached keys serve it.
            mode.withLock { $0 = .slowlyFail }
            clock.advance(.milliseconds(1100))  // past the longest back-off
            let started = ContinuousClock.now
            #expect(try await authenticator.authenticate(request)?.id == "acct")
            #expect(ContinuousClock.now - started < .seconds(2), "a request waited for the 3 s fetch")

            // Past the limit (20 s after the last fetch that worked), no token is accepted (503) until
            // the keys are fetched again; just before it, the cached keys still serve.
            clock.advance(.milliseconds(19_990) - fetched.duration(to: clock.instant()))
            #expect(try await authenticator.authenticate(request)?.id == "acct", "refused before the limit")
            clock.advance(.milliseconds(20))
            do {
                _ = try await authenticator.authenticate(request)
                Issue.record("keys past the limit still serve")
            } catch let error as OperationError {
                #expect(error.code == .unavailable)
            }
            mode.withLock { $0 = .answer }
            #expect(await eventually(timeout: .seconds(5)) {
                clock.advance(.milliseconds(250))  // past the back-off of the slow fetch that failed
                return (try? await authenticator.authenticate(request))?.id == "acct"
            }, "once auth answers again, tokens are accepted")
        }
    }

    /// A token verified once is remembered, but never past its expiry, and never past a change of
    /// keys: a token of a key auth no longer publishes is refused once the keys are fetched again.
    @Test func aVerifiedTokenIsRememberedUntilItExpiresOrTheKeysChange() async throws {
        let old = SigningKey.generate(), new = SigningKey.generate()
        let current = Mutex(old)
        let (broker, keysWorker, client) = try Self.keysService { try Self.jwks(current.withLock { $0 }) }
        let clock = MovableClock()
        let authenticator = JWKSAuthenticator(
            bus: client, revocations: nil, audience: "melon", issuer: "urn:melon:auth", logger: Logger(label: "gateway"),
            refreshInterval: .seconds(1), minimumRefetch: .milliseconds(50), maxKeyAge: .seconds(3600), clock: clock.clock)
        @Sendable func request(_ token: String) -> Request {
            Request(head: .init(method: .get, scheme: "http", authority: "melon", path: "/v1/me", headerFields: [.authorization: "Bearer \(token)"]),
                    body: .init(buffer: ByteBuffer()))
        }
        func token(_ key: SigningKey, lasting seconds: Double) async throws -> String {
            try await AccessTokenSigner(current: key).sign(AccessTokenClaims(
                subject: "acct", session: "sess", university: nil, roles: ["user"], app: "melon", audience: "melon", issuer: "urn:melon:auth",
                issuedAt: Date(), expiresAt: Date().addingTimeInterval(seconds)))
        }
        let lasting = try await token(old, lasting: 60)

        try await BusHarness.with([broker, keysWorker, client]) {
            #expect(await BusHarness.waitForService(Auth.name, client: client))
            // The keys are fetched first, so the brief token's seconds are not spent on that (a loaded
            // machine once took them all).
            #expect(try await authenticator.authenticate(request(lasting))?.id == "acct")
            let brief = try await token(old, lasting: 3)
            #expect(try await authenticator.authenticate(request(brief))?.id == "acct")
            #expect(try await authenticator.authenticate(request(brief))?.id == "acct", "remembered")
            clock.advance(.milliseconds(4100))  // past the expiry however it is rounded to seconds
            await #expect(throws: OperationError.self, "remembered, but expired") { try await authenticator.authenticate(request(brief)) }

            // Auth rotates to a new key and stops publishing the old one: once the keys are fetched
            // again (due after 1 s), the remembered token of the old key is refused.
            current.withLock { $0 = new }
            #expect(await eventually(timeout: .seconds(10)) {
                do {
                    _ = try await authenticator.authenticate(request(lasting))
                    return false
                } catch let error as OperationError {
                    return error.code == .unauthenticated
                }
            }, "a token of a key no longer published still passes")
            #expect(try await authenticator.authenticate(request(try await token(new, lasting: 60)))?.id == "acct")
        }
    }
}
