import Foundation
import Logging
import NotificationsContract
@testable import NotificationsService
import ServiceLifecycle
import Testing
import TestSupport

/// Several instances and slow hosts: one provider token for the team, and no delivery waiting on
/// another host's or another device's.
@Suite(.timeLimit(.minutes(2))) struct DeliveryLanesTests {
    static func push(_ harness: NotificationsHarness, _ text: String) async throws {
        _ = try await PushDeliveryTests.send(harness, PushDeliveryTests.bill(text))
    }

    /// Two instances start delivering at once, then both find the token old: Apple sees one token at
    /// a time (no TooManyProviderTokenUpdates), and a restarted instance presents the current one.
    @Test func twoInstancesPresentOneTokenAtStartAcrossARenewalAndAfterARestart() async throws {
        let start = Date().addingTimeInterval(-55 * 60)
        try await NotificationsHarness.with(start: start) { first in
            try await NotificationsHarness.with(start: start, sharing: first) { second in
                for index in 0..<12 { try await PushDeliveryTests.register(first, token: String(format: "%064x", index + 1)) }
                func deliverBoth(until count: Int) async throws {
                    async let one: Int = first.deliver { first.server.accepted.count >= count }
                    async let two: Int = second.deliver { first.server.accepted.count >= count }
                    _ = try await (one, two)
                }
                try await Self.push(first, "one")
                try await deliverBoth(until: 12)
                #expect(first.server.tokenUpdatesRefused == 0 && Set(first.server.received.map(\.jwt)).count == 1)

                // 55 minutes on: the token is older than APNS_TOKEN_REFRESH (50 minutes) for both.
                first.advance(to: Date())
                second.advance(to: Date())
                try await Self.push(first, "two")
                try await deliverBoth(until: 24)
                #expect(first.server.tokenUpdatesRefused == 0, "refused as token updates: \(first.server.tokenUpdatesRefused)")
                #expect(Set(first.server.received.map(\.jwt)).count == 2, "one renewal for both instances")
            }
            // A restart: a new instance on the same database takes the shared token.
            try await NotificationsHarness.with(sharing: first) { restarted in
                try await Self.push(restarted, "three")
                try await restarted.deliver { first.server.accepted.count >= 36 }
                #expect(first.server.tokenUpdatesRefused == 0 && Set(first.server.received.map(\.jwt)).count == 2)
            }
        }
    }

    /// A sandbox host that takes the connection and never answers: production pushes go on while
    /// the sandbox attempt is still under way, and shutdown does not wait for it.
    @Test func aSilentSandboxHostHoldsNeitherProductionPushesNorShutdown() async throws {
        let silent = try await UnansweringHost()
        try await NotificationsHarness.with(environment: ["APNS_SANDBOX_URL": silent.url, "APNS_TIMEOUT": "60000"]) { harness in
            try await PushDeliveryTests.register(harness, token: String(repeating: "ab", count: 32), environment: .sandbox)
            try await PushDeliveryTests.register(harness)
            let group = ServiceGroup(services: [harness.delivery], logger: Logger(label: "delivery"))
            let running = Task { try await group.run() }
            try await Self.push(harness, "first")
            #expect(await eventually { harness.server.accepted.count == 1 })
            for index in 0..<3 { try await Self.push(harness, "more \(index)") }
            #expect(await eventually { harness.server.accepted.count == 4 })
            let sandbox = "SELECT string_agg(concat_ws(' ', d.attempts, d.reason), '; ') FROM deliveries d JOIN devices v ON v.id = d.device_id WHERE v.environment = 'sandbox'"
            // Each sandbox push is claimed once and stays under way: the lane's claims, not their timing, are the point.
            let claimed = await eventually { try await harness.text(sandbox) == "1; 1; 1; 1" }
            let attempts = try await harness.text(sandbox)
            #expect(claimed, "the sandbox's first attempts are still under way: \(attempts)")

            let stopping = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await running.value
            let took = stopping.duration(to: .now)
            // Sends get 2 s and closing the connections 1 s; the sandbox would hold it 60 s.
            #expect(took < .seconds(15), "shutdown took \(took), waiting on a host that does not answer")
        }
        await silent.shutdown()
    }

    /// A host that refuses connections fails the attempt at once, not after the connection pool
    /// tried again until the connect timeout (60 s here; the test allows half).
    @Test func aRefusedConnectionFailsAtOnce() async throws {
        try await NotificationsHarness.with(environment: ["APNS_SANDBOX_URL": "https://127.0.0.1:\(Ports.free())", "APNS_TIMEOUT": "60000"]) { harness in
            try await PushDeliveryTests.register(harness, environment: .sandbox)
            try await Self.push(harness, "refused")
            let started = ContinuousClock.now
            try await harness.deliver(timeout: .seconds(70)) { try await harness.integer("SELECT count(*)::int FROM deliveries WHERE reason IS NOT NULL") == 1 }
            let took = started.duration(to: .now)
            let reason = try await harness.text("SELECT reason FROM deliveries")
            #expect(reason.hasPrefix("APNs unreachable") && took < .seconds(30), "\(reason) after \(took)")
        }
    }
}
