import AuthContract
import Bus
import Envelope
import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// The sessions that ended (logout, password reset or change, a reused refresh token, a deleted
/// account) while access tokens of them may still be valid: the gateway refuses those tokens.
///
/// It hears of each end as the live event `auth.sessions.revoked.v1`, and reads the whole set from
/// auth (`auth.sessions.revoked.v1`) when it starts, whenever its live-event connection is made again
/// (events published meanwhile were lost) and every `resyncInterval`, which also covers an event
/// auth failed to publish. Until the set has been read once, and again once the last read is
/// `maxAge` old (auth unreachable that long), tokens are answered 503.
public final class SessionRevocations: Service {
    private let bus: BusClient
    private let subscriber: EventSubscriber?
    private let resyncInterval: Duration
    private let maxAge: Duration
    private let logger: Logger
    /// Ends are read on its time of day, the last read's age on its monotonic time.
    private let clock: ServiceClock
    private let state = Mutex(State())

    private struct State {
        /// Ended session ids, each until its last access token expires.
        var revoked: [String: Date] = [:]
        /// When the set was last read in full.
        var synced: ContinuousClock.Instant?
        /// The read under way: every check that needs the set meanwhile awaits this one.
        var syncing: Task<Void, any Error>?

        mutating func remember(_ session: Auth.RevokedSession) {
            revoked[session.sid] = max(session.until, revoked[session.sid] ?? .distantPast)
        }
    }

    public init(
        bus: BusClient, subscriber: EventSubscriber?, resyncInterval: Duration, maxAge: Duration, logger: Logger, clock: ServiceClock = .system
    ) {
        self.clock = clock
        self.bus = bus
        self.subscriber = subscriber
        self.resyncInterval = resyncInterval
        self.maxAge = maxAge
        self.logger = logger
    }

    /// Throws `unauthenticated` when session `sid` has ended, `unavailable` while the ended sessions
    /// cannot be read.
    public func check(_ sid: String) async throws(OperationError) {
        let synced = state.withLock { $0.synced }
        if synced.map({ $0.duration(to: clock.instant()) >= maxAge }) ?? true {
            do {
                try await sync().value
            } catch {
                throw OperationError(.unavailable, "the ended sessions could not be read from the auth service; retrying shortly")
            }
        }
        let until = state.withLock { $0.revoked[sid] }
        if let until, until > clock.now() { throw OperationError(.unauthenticated, "the session has ended: sign in again") }
    }

    /// Reads the set at start, on every live-event connection and every `resyncInterval`, and adds
    /// each live event, until shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.resyncPeriodically() }
                if let subscriber = self.subscriber {
                    group.addTask { try? await subscriber.run() }
                    group.addTask {
                        for await delivery in subscriber.deliveries {
                            switch delivery {
                            case .connected:
                                // A read under way may have fetched its pages before what was lost
                                // while away: read once more after it.
                                if let running = self.state.withLock({ $0.syncing }) { _ = try? await running.value }
                                _ = try? await self.sync().value
                            case .event(_, let body): self.add(body)
                            }
                        }
                    }
                }
                await group.waitForAll()
            }
        }
    }

    private func resyncPeriodically() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await sync().value
                failures = 0
                try await Task.sleep(for: resyncInterval)
            } catch is CancellationError {
                return
            } catch {
                // Sooner than the interval after a failure: 1 s doubling up to 15 s.
                failures += 1
                try? await Task.sleep(for: min(.seconds(15), .seconds(1 << min(failures - 1, 4))))
            }
        }
    }

    private func add(_ body: [UInt8]) {
        guard let event = LiveEvent<Auth.RevokedSessions>.decode(body) else {
            logger.warning("an unreadable session-revocation event", metadata: ["bytes": "\(body.count)"])
            return
        }
        state.withLock { state in
            for session in event.data.sessions { state.remember(session) }
        }
    }

    /// The read under way, or a new one. Concurrent callers share one read.
    private func sync() -> Task<Void, any Error> {
        state.withLock { state in
            if let syncing = state.syncing { return syncing }
            // Unstructured: the read belongs to no one request; it ends with its calls' 5 s timeouts.
            let syncing = Task { try await self.read() }
            state.syncing = syncing
            return syncing
        }
    }

    private func read() async throws {
        defer { state.withLock { $0.syncing = nil } }
        var sessions: [Auth.RevokedSession] = []
        var after: String?
        do {
            repeat {
                let page = try await bus.call(Auth.Sessions.Revoked.self, .init(after: after), options: CallOptions(timeout: .seconds(5)))
                sessions += page.sessions
                after = page.next
            } while after != nil
        } catch {
            logger.warning("the ended sessions could not be read", metadata: ["error": "\(String(reflecting: error))"])
            throw error
        }
        let now = clock.now()
        let count = state.withLock { state in
            // A union: an end is never undone, and events heard during the read must stay.
            state.revoked = state.revoked.filter { $0.value > now }
            for session in sessions where session.until > now { state.remember(session) }
            state.synced = clock.instant()
            return state.revoked.count
        }
        logger.debug("ended sessions read", metadata: ["count": "\(count)"])
    }
}
