import Bus
import Contracts
import Envelope
import Foundation
import ServiceLifecycle
import Testing
import TestSupport
import ZeroMQ

/// Our worker runtime and client against a fake broker that checks RFC 7 frames byte for byte.
@Suite(.timeLimit(.minutes(2))) struct WorkerGoldenFrameTests {
    let context = try! ZMQContext()

    private func envelope(id: String, text: String, expiry: Date = Date().addingTimeInterval(10), delay: Int? = nil, busy: Int? = nil) throws -> Frame {
        let attributes = RequestAttributes(id: id, source: "urn:melon:test", type: Echo.Message.Repeat.type, expiryTime: expiry)
        return try EnvelopeCodec().encode(RequestEnvelope(
            attributes: attributes, data: Echo.Message.Repeat.Request(text: text, delayMilliseconds: delay, busyMilliseconds: busy)))
    }

    private func reply(_ frame: Frame) throws -> ReplyEnvelope<Echo.Message.Repeat.Response> {
        try EnvelopeCodec().decode(ReplyEnvelope<Echo.Message.Repeat.Response>.self, from: frame)
    }

    @Test func workerSpeaksRFC7() async throws {
        let broker = try RawPeer(routerOn: context)
        // This fake broker never heartbeats: a long liveness keeps the worker from reconnecting mid-test.
        let worker = try BusHarness.echoWorker(broker.endpoint, workers: 1, heartbeat: Heartbeat(interval: .milliseconds(200), liveness: 50))
        let group = ServiceGroup(services: [worker], logger: .init(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }

            // READY with the service name.
            let ready = try #require(try await broker.receive())
            let address = ready[0]
            #expect(Array(ready.dropFirst()) == [Golden.empty, Golden.worker, Golden.ready, Golden.bytes("echo")])

            // Heartbeats while idle.
            #expect(try await broker.receive() == [address, Golden.empty, Golden.worker, Golden.heartbeat])

            // REQUEST in, REPLY out, addressed to the same client.
            try broker.send([address, Golden.empty, Golden.worker, Golden.request, Golden.bytes("CLIENT"), Golden.empty,
                             try envelope(id: "req-1", text: "golden")])
            // A REPLY: with a second's wake-up lost on a loaded machine, a READY of a reconnection may come first.
            let answer = try #require(try await broker.receive { $0.count > 4 && $0[3] == Golden.reply })
            #expect(Array(answer.prefix(6)) == [address, Golden.empty, Golden.worker, Golden.reply, Golden.bytes("CLIENT"), Golden.empty])
            #expect(answer.count == 7)
            let decoded = try reply(answer[6])
            #expect(decoded.attributes.correlationID == "req-1")
            #expect(try decoded.result.get().text == "golden")

            // A request whose deadline has passed is answered without running the handler.
            try broker.send([address, Golden.empty, Golden.worker, Golden.request, Golden.bytes("CLIENT"), Golden.empty,
                             try envelope(id: "req-late", text: "late", expiry: Date().addingTimeInterval(-1), delay: 60_000)])
            let started = ContinuousClock.now
            let late = try #require(try await broker.receive { $0.count > 6 && $0[3] == Golden.reply })
            // Long before the handler's minute: it never ran (a bound, not a speed).
            #expect(started.duration(to: .now) < .seconds(20))
            #expect(try reply(late[6]).attributes.outcome == .error(.deadlineExceeded))

            // DISCONNECT from the broker: the worker comes back on a new connection with READY.
            try broker.send([address, Golden.empty, Golden.worker, Golden.disconnect])
            let again = try #require(try await broker.receive { $0.count == 5 && $0[3] == Golden.ready })
            #expect(again[0] != address)
            #expect(Array(again.dropFirst()) == [Golden.empty, Golden.worker, Golden.ready, Golden.bytes("echo")])

            // Graceful shutdown: DISCONNECT.
            await group.triggerGracefulShutdown()
            let bye = try #require(try await broker.receive { $0.count == 4 && $0[3] == Golden.disconnect })
            #expect(Array(bye.dropFirst()) == [Golden.empty, Golden.worker, Golden.disconnect])
            try await tasks.waitForAll()
        }
    }

    /// Three requests at once over one connection: READY says so, and each reply goes back with the
    /// client address frame its request came with, as soon as its handler ends: the two quick ones
    /// do not wait for the slow one sent before them.
    @Test func aConnectionOfCapacityTakesThatManyRequestsAtOnce() async throws {
        let broker = try RawPeer(routerOn: context)
        let worker = try BusHarness.echoWorker(broker.endpoint, workers: 3, connections: 1, heartbeat: Heartbeat(interval: .milliseconds(200), liveness: 50))
        let group = ServiceGroup(services: [worker], logger: .init(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let ready = try #require(try await broker.receive())
            #expect(Array(ready.dropFirst()) == [Golden.empty, Golden.worker, Golden.ready, Golden.bytes("echo"), Golden.bytes("3")])
            let address = ready[0]
            for (tag, delay) in [("A", 4000), ("B", 0), ("C", 0)] {
                try broker.send([address, Golden.empty, Golden.worker, Golden.request, Golden.bytes("CLIENT" + tag), Golden.empty,
                                 try envelope(id: "req-" + tag, text: tag, delay: delay)])
            }
            var order: [Frame] = []
            for _ in 0..<3 {
                // Generous: only the order is asserted, and a loaded machine delays wake-ups by seconds.
                let answer = try #require(try await broker.receive(timeout: .seconds(30)) { $0.count > 6 && $0[3] == Golden.reply })
                #expect(try reply(answer[6]).result.get().text == String(decoding: answer[4].dropFirst(6), as: UTF8.self))
                order.append(answer[4])
            }
            // Side by side: the quick ones answer while the slow one still runs.
            #expect(Set(order.prefix(2)) == Set(["CLIENTB", "CLIENTC"].map(Golden.bytes)))
            #expect(order.last == Golden.bytes("CLIENTA"))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// A handler that holds the I/O thread for 2 s without suspending, as a long computation does (the
    /// only request of its wake-up starts there): the process heartbeats on every connection all the
    /// while, so a broker never takes it for dead and never hands the request to another worker.
    @Test func aHandlerThatHoldsTheIOThreadForLongDoesNotStopTheHeartbeats() async throws {
        let broker = try RawPeer(routerOn: context)
        let worker = try BusHarness.echoWorker(broker.endpoint, workers: 2, connections: 2, heartbeat: Heartbeat(interval: .milliseconds(100), liveness: 50))
        let group = ServiceGroup(services: [worker], logger: .init(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let first = try #require(try await broker.receive { $0.count > 3 && $0[3] == Golden.ready })
            let second = try #require(try await broker.receive { $0.count > 3 && $0[3] == Golden.ready && $0[0] != first[0] })
            try broker.send([first[0], Golden.empty, Golden.worker, Golden.request, Golden.bytes("CLIENT"), Golden.empty,
                             try envelope(id: "req-busy", text: "busy", busy: 2000)])
            // Heartbeats from both connections until the reply: about 20 each at 100 ms.
            var heartbeats: [Frame: Int] = [:]
            while let message = try await broker.receive(timeout: .seconds(30)), message[3] != Golden.reply {
                if message[3] == Golden.heartbeat { heartbeats[message[0], default: 0] += 1 }
            }
            #expect(heartbeats[first[0], default: 0] >= 5 && heartbeats[second[0], default: 0] >= 5, "heartbeats while the handler computed: \(heartbeats.values)")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// A broker gone silent while a handler runs: the connection comes back at once on a new
    /// socket (the process stays in service), and the late reply is dropped, never sent to a broker
    /// that did not hand out the request.
    @Test func aConnectionReplacedWhileAHandlerRunsComesBackAtOnce() async throws {
        let broker = try RawPeer(routerOn: context)
        let worker = try BusHarness.echoWorker(broker.endpoint, workers: 2, connections: 1, heartbeat: Heartbeat(interval: .milliseconds(100), liveness: 3))
        let group = ServiceGroup(services: [worker], logger: .init(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let ready = try #require(try await broker.receive())
            try broker.send([ready[0], Golden.empty, Golden.worker, Golden.request, Golden.bytes("CLIENT"), Golden.empty,
                             try envelope(id: "req-slow", text: "slow", delay: 6000)])
            // Silence from here on: after 3 missed heartbeats the worker replaces its socket.
            let started = ContinuousClock.now
            let again = try #require(try await broker.receive(timeout: .seconds(10)) { $0.count > 4 && $0[3] == Golden.ready && $0[0] != ready[0] })
            #expect(started.duration(to: .now) < .milliseconds(5000), "READY again only after the handler ended")
            #expect(Array(again.dropFirst()) == [Golden.empty, Golden.worker, Golden.ready, Golden.bytes("echo"), Golden.bytes("2")])
            // Past the handler's end: its reply never comes.
            #expect(try await broker.receive(timeout: .seconds(7)) { $0.count > 4 && $0[3] == Golden.reply } == nil)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test func clientSpeaksRFC7() async throws {
        let broker = try RawPeer(routerOn: context)
        let client = try BusHarness.client(broker.endpoint)
        try await BusHarness.with([client]) {
            async let response = client.call(Echo.Message.Repeat.self, .init(text: "hello"))
            let request = try #require(try await broker.receive())
            #expect(Array(request[1...3]) == [Golden.empty, Golden.client, Golden.bytes("echo")])
            #expect(request.count == 5)
            let attributes = try EnvelopeCodec().decode(RequestEnvelope<Echo.Message.Repeat.Request>.self, from: request[4]).attributes
            #expect(attributes.type == "echo.message.repeat.v1")
            #expect(attributes.source == "urn:melon:test")
            #expect(attributes.expiryTime != nil && TraceParent(attributes.traceParent ?? "") != nil)
            let answer = ReplyEnvelope(answering: attributes, source: "urn:melon:echo", result: .success(Echo.Message.Repeat.Response(text: "hello", worker: "fake")))
            try broker.send([request[0], Golden.empty, Golden.client, Golden.bytes("echo"), try EnvelopeCodec().encode(answer)])
            #expect(try await response.worker == "fake")

            async let available = client.isAvailable(service: "echo")
            let lookup = try #require(try await broker.receive())
            #expect(lookup.count == 6)
            #expect(Array(lookup[1...3]) == [Golden.empty, Golden.client, Golden.bytes("mmi.service")])
            #expect(lookup[5] == Golden.bytes("echo"))
            try broker.send([lookup[0], Golden.empty, Golden.client, Golden.bytes("mmi.service"), lookup[4], Golden.bytes("200")])
            #expect(try await available)
        }
    }
}
