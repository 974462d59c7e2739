import Bus
import Foundation
import Synchronization
import Testing
import TestSupport
import ZeroMQ

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

    /// Two brokers (issue 42): the publisher sends through both proxies and the subscriber listens to
    /// both, so every event arrives twice; the subscriber hands each on once. A bare SUB on both
    /// proxies counts the copies, so the check runs only once both paths carry events.
    @Test func throughTwoBrokersEachEventIsHeardOnce() async throws {
        let endpoints = (0..<2).map { _ in (bus: Ports.freeEndpoint(), events: Ports.freeEndpoint(), publish: Ports.freeEndpoint()) }
        let brokers = try endpoints.map { endpoint in
            try BusHarness.broker(events: true) {
                $0.endpoint = endpoint.bus
                $0.eventsEndpoint = endpoint.events
                $0.eventsPublishEndpoint = endpoint.publish
            }
        }
        let subscriber = try EventSubscriber(endpoint: endpoints.map(\.events).joined(separator: ","), topics: ["chat."], logger: BusHarness.logger("subscriber"))
        let publisher = try EventPublisher(endpoint: endpoints.map(\.publish).joined(separator: ","), processName: "test", logger: BusHarness.logger("publisher"))
        let context = try ZMQContext()
        func bareSubscriber() throws -> ZMQSocket {
            let socket = try ZMQSocket(context, type: .sub)
            try socket.set(.subscribe, Array("chat.".utf8))
            for endpoint in endpoints { try socket.connect(endpoint.events) }
            return socket
        }
        let copies = Mutex(try bareSubscriber())
        defer { copies.withLock { $0.close() } }
        // What reached the bare SUB since last asked: each event's text, as often as it came.
        let drain = { @Sendable () throws -> [String: Int] in
            try copies.withLock { socket in
                var seen: [String: Int] = [:]
                while let frames = try socket.receive(), frames.count == 2 {
                    if let text = LiveEvent<Note>.decode(frames[1])?.data.text { seen[text, default: 0] += 1 }
                }
                return seen
            }
        }
        let heard = Mutex<[String]>([])
        let listening = Task {
            for await delivery in subscriber.deliveries {
                if case .event(_, let body) = delivery, let text = LiveEvent<Note>.decode(body)?.data.text { heard.withLock { $0.append(text) } }
            }
        }
        try await BusHarness.with(brokers + [subscriber, publisher]) {
            // Probes until one arrives twice at the bare SUB: both proxies pass events on.
            let probes = Mutex(0)
            #expect(await eventually {
                let probe = probes.withLock { $0 += 1; return $0 }
                publisher.publish("chat.probe", Note(text: "probe \(probe)"))
                try await Task.sleep(for: .milliseconds(50))
                return try drain().values.contains(2)
            })
            let sent = (0..<20).map { "event \($0)" }
            for text in sent { publisher.publish("chat.room", Note(text: text)) }
            #expect(await eventually { Set(sent).isSubset(of: heard.withLock { Set($0) }) })
            try await Task.sleep(for: .milliseconds(300)) // room for a copy that would come late
            let arrived = try drain().filter { sent.contains($0.key) }.values.reduce(0, +)
            #expect(arrived == 40, "each event came through both brokers")
            #expect(heard.withLock { $0.filter { $0.hasPrefix("event ") } } .count == 20, "each event handed on once: \(heard.withLock { $0 })")
        }
        listening.cancel()
    }
}
