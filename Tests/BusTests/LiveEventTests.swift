import Bus
import Foundation
import Synchronization
import Testing
import TestSupport

/// The live-event publisher and subscriber over the broker's proxy: an event reaches subscribers of
/// its topic alone, and a subscriber reports each connection, the first and the one after the broker
/// restarts (its owner then catches up on what it missed).
@Suite(.timeLimit(.minutes(2))) struct LiveEventTests {
    struct Note: Codable, Sendable, Equatable { var text: String }

    @Test func anEventReachesItsTopicsSubscribersAndEachConnectionIsReported() async throws {
        let (bus, events, publish) = (Ports.freeEndpoint(), Ports.freeEndpoint(), Ports.freeEndpoint())
        func broker() throws -> Broker {
            try BusHarness.broker(events: true) {
                $0.endpoint = bus
                $0.eventsEndpoint = events
                $0.eventsPublishEndpoint = publish
            }
        }
        let subscriber = try EventSubscriber(endpoint: events, topics: ["chat."], logger: BusHarness.logger("subscriber"))
        let publisher = try EventPublisher(endpoint: publish, processName: "test", logger: BusHarness.logger("publisher"))
        let heard = Mutex<[LiveDelivery]>([])
        let listening = Task { for await delivery in subscriber.deliveries { heard.withLock { $0.append(delivery) } } }
        let connections = { @Sendable in heard.withLock { $0.filter { if case .connected = $0 { true } else { false } }.count } }
        let notes = { @Sendable in heard.withLock { $0.compactMap { if case .event(let type, let body) = $0 { (type, LiveEvent<Note>.decode(body)?.data) } else { nil } } } }

        try await BusHarness.with([subscriber, publisher]) {
            try await BusHarness.with([try broker()]) {
                #expect(await eventually { connections() == 1 })
                // PUB/SUB drops events until the subscription has travelled through the proxy.
                #expect(await eventually {
                    publisher.publish("other.topic", Note(text: "not for us"))
                    publisher.publish("chat.room-1", Note(text: "hello"))
                    return !notes().isEmpty
                })
            }
            #expect(notes().allSatisfy { $0.0 == "chat.room-1" && $0.1 == Note(text: "hello") }, "\(notes())")
            try await BusHarness.with([try broker()]) {
                #expect(await eventually { connections() == 2 }, "the connection to the restarted broker is reported")
            }
        }
        listening.cancel()
    }
}
