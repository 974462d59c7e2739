import Bus
import Contracts
import Envelope
import Foundation
import ServiceLifecycle
import Testing
import TestSupport

/// The bus client and worker runtime end to end through an in-process broker.
@Suite(.timeLimit(.minutes(2))) struct ClientAndWorkerTests {
    typealias Repeat = Echo.Message.Repeat

    @Test func manyRequestsInFlightEachGetTheirOwnReply() async throws {
        let broker = try BusHarness.broker()
        let echo = try BusHarness.echoWorker(broker.endpoint, workers: 8)
        let client = try BusHarness.client(broker.endpoint)
        try await BusHarness.with([broker, echo, client]) {
            let texts = try await withThrowingTaskGroup(of: (String, String).self) { group in
                for index in 0..<300 {
                    group.addTask {
                        let text = "message-\(index)"
                        // A generous deadline: this pins correlation, not speed, on a machine the parallel suite loads.
                        return (text, try await client.call(
                            Repeat.self, .init(text: text, delayMilliseconds: index % 3), options: CallOptions(timeout: .seconds(60))).text)
                    }
                }
                return try await group.reduce(into: [(String, String)]()) { $0.append($1) }
            }
            #expect(texts.count == 300)
            #expect(texts.allSatisfy { $0.0 == $0.1 })
        }
    }

    @Test func aCallFailsWithDeadlineExceededWhenItsDeadlinePasses() async throws {
        let broker = try BusHarness.broker()
        let echo = try BusHarness.echoWorker(broker.endpoint)
        let client = try BusHarness.client(broker.endpoint)
        try await BusHarness.with([broker, echo, client]) {
            // The worker known first: within 300 ms a loaded machine may not have registered it, and the
            // call is then unavailable, which is not what this test is about.
            #expect(await BusHarness.waitForService("echo", client: client))
            let options = CallOptions(timeout: .milliseconds(300))
            let start = ContinuousClock.now
            await #expect {
                try await client.call(Repeat.self, .init(text: "slow", delayMilliseconds: 8000), options: options)
            } throws: { error in
                (error as? OperationError)?.code == .deadlineExceeded
            }
            #expect(start.duration(to: .now) < .seconds(5), "at the deadline, not when the handler finished")
        }
    }

    @Test func handlerErrorsArriveTypedWithTheirFields() async throws {
        let broker = try BusHarness.broker()
        let echo = try BusHarness.echoWorker(broker.endpoint)
        let client = try BusHarness.client(broker.endpoint)
        try await BusHarness.with([broker, echo, client]) {
            // The worker known first: with both cores busy its READY once came after the call's
            // deadline, and the call was unavailable, which is not what this test is about.
            #expect(await BusHarness.waitForService("echo", client: client))
            await #expect(throws: OperationError(.conflict, "failed on request, as asked")) {
                try await client.call(Repeat.self, .init(text: "x", fail: .conflict))
            }
            await #expect(throws: OperationError.invalid(field: "data.text", "must be 1 to 65,536 characters")) {
                try await client.call(Repeat.self, .init(text: ""))
            }
        }
    }

    @Test func unavailableRepliesAreRetriedWithBackoffWithinTheDeadline() async throws {
        // A queue of one and a single slow worker: most of these calls are first refused as
        // unavailable (queue full), and succeed on a later attempt.
        let broker = try BusHarness.broker { $0.queueLimit = 1 }
        let echo = try BusHarness.echoWorker(broker.endpoint, workers: 1)
        let client = try BusHarness.client(broker.endpoint) { $0.retryBackoff = .milliseconds(20) }
        try await BusHarness.with([broker, echo, client]) {
            #expect(await BusHarness.waitForService("echo", client: client))
            let replies = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<6 {
                    group.addTask { try await client.call(Repeat.self, .init(text: "r\(index)", delayMilliseconds: 50)).text }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(replies == Set((0..<6).map { "r\($0)" }))
        }
    }

    @Test func mmiTellsWhetherAServiceHasWorkers() async throws {
        let broker = try BusHarness.broker()
        let echo = try BusHarness.echoWorker(broker.endpoint)
        let client = try BusHarness.client(broker.endpoint)
        try await BusHarness.with([broker, echo, client]) {
            #expect(await BusHarness.waitForService("echo", client: client))
            let household = try await client.isAvailable(service: "household")
            #expect(household == false)
        }
    }

    @Test func theRegistryNamesWhatIsWrongWithARequest() async throws {
        let registry = EchoService.registry()
        func reply(_ json: String) async throws -> OperationError? {
            let bytes = await registry.handle(Array(json.utf8), logger: .init(label: "test"), bus: nil)
            let envelope = try EnvelopeCodec().decode(ReplyEnvelope<Repeat.Response>.self, from: bytes)
            if case .failure(let error) = envelope.result { return error }
            return nil
        }
        let head = #""specversion":"1.0","id":"x","source":"urn:melon:test","time":"2026-11-21T14:29:29Z""#
        #expect(try await reply(#"{\#(head),"type":"echo.message.shout.v1","data":{}}"#)?.fields.map(\.field) == ["type"])
        #expect(try await reply(#"{\#(head),"type":"echo.message.repeat.v1","data":{"text":7}}"#)?.fields.map(\.field) == ["data.text"])
        #expect(try await reply(#"{\#(head),"type":"echo.message.repeat.v1","data":{"text":"hi","delayMilliseconds":-5}}"#)?.fields.map(\.field) == ["data.delayMilliseconds"])
        #expect(try await reply(#"{\#(head),"type":"echo.message.repeat.v1","data":{"text":"hi"}}"#) == nil)
        #expect(try await reply("[1,2]")?.code == .invalid)
    }

    /// With one request per connection, and with all three on one connection (which the broker may
    /// hand a new request while it drains: it is handed on once the connection's last reply is out).
    @Test(arguments: [3, 1])
    func gracefulShutdownFinishesInFlightRequestsAndHandsNewOnesToOtherWorkers(connections: Int) async throws {
        let broker = try BusHarness.broker()
        let leaving = try BusHarness.echoWorker(broker.endpoint, workers: 3, connections: connections)
        let staying = try BusHarness.echoWorker(broker.endpoint, workers: 2)
        let client = try BusHarness.client(broker.endpoint)
        let leavingGroup = ServiceGroup(services: [leaving], logger: .init(label: "leaving"))
        try await BusHarness.with([broker, client]) {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await leavingGroup.run() }
                #expect(await BusHarness.waitForService("echo", client: client))
                // Start slow requests that only the leaving worker serves, then SIGTERM it mid-flight.
                async let first = client.call(Repeat.self, .init(text: "in flight 1", delayMilliseconds: 400))
                async let second = client.call(Repeat.self, .init(text: "in flight 2", delayMilliseconds: 400))
                try await Task.sleep(for: .milliseconds(100))
                await leavingGroup.triggerGracefulShutdown()
                async let during = client.call(Repeat.self, .init(text: "during"))
                tasks.addTask { try await staying.run() }
                #expect(try await first.text == "in flight 1")
                #expect(try await second.text == "in flight 2")
                #expect(try await during.text == "during")
                try await tasks.next()  // the leaving worker's group has finished
                let after = try await client.call(Repeat.self, .init(text: "after"))
                #expect(after.text == "after")
                tasks.cancelAll()
            }
        }
    }

    @Test func aHandlerThatDoesNotSuspendIsServedOnTheWorkersIOThread() async throws {
        // The thread a handler ran on, before and after it suspends, named in the reply.
        var registry = OperationRegistry(service: "echo")
        registry.register(Repeat.self) { request, _ in
            let before = Self.currentThreadName()
            if let delay = request.delayMilliseconds { try await Task.sleep(for: .milliseconds(delay)) }
            return .init(text: request.text, worker: "\(before) \(Self.currentThreadName())")
        }
        let broker = try BusHarness.broker()
        let worker = try WorkerRuntime(
            registry: registry, configuration: WorkerConfiguration(endpoint: broker.endpoint, workers: 2, heartbeat: BusHarness.fastHeartbeat),
            logger: .init(label: "echo"))
        let client = try BusHarness.client(broker.endpoint)
        try await BusHarness.with([broker, worker, client]) {
            let immediate = try await client.call(Repeat.self, .init(text: "now"), options: CallOptions(timeout: .seconds(30)))
            #expect(immediate.worker == "worker-echo worker-echo")
            // One that suspends starts there, goes on elsewhere, and its reply still arrives.
            let suspended = try await client.call(Repeat.self, .init(text: "later", delayMilliseconds: 10), options: CallOptions(timeout: .seconds(30)))
            #expect(suspended.text == "later")
            #expect(suspended.worker.hasPrefix("worker-echo "))
            #expect(suspended.worker != "worker-echo worker-echo")
        }
    }

    @Test func aBurstOfHandlersThatDoNotSuspendIsSpreadBeyondTheIOThread() async throws {
        // Each handler computes for 100 ms without suspending. Six sent at once must not all run one
        // after another on the I/O thread: once one has used up the inline budget, the others received
        // with it start on the global executor, but the last.
        var registry = OperationRegistry(service: "echo")
        registry.register(Repeat.self) { request, _ in
            let end = ContinuousClock.now + .milliseconds(100)
            while ContinuousClock.now < end {}
            return .init(text: request.text, worker: Self.currentThreadName())
        }
        let broker = try BusHarness.broker()
        let worker = try WorkerRuntime(
            registry: registry, configuration: WorkerConfiguration(endpoint: broker.endpoint, workers: 6, heartbeat: BusHarness.fastHeartbeat),
            logger: .init(label: "echo"))
        let client = try BusHarness.client(broker.endpoint)
        try await BusHarness.with([broker, worker, client]) {
            #expect(await BusHarness.waitForService("echo", client: client))
            try await Task.sleep(for: .milliseconds(300))  // every connection's READY in, so all six are dispatched at once
            let threads = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<6 {
                    group.addTask { try await client.call(Repeat.self, .init(text: "\(index)"), options: CallOptions(timeout: .seconds(30))).worker }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(threads.count == 6)
            #expect(threads.contains { $0 != "worker-echo" }, "every handler ran on the I/O thread: \(threads)")
        }
    }

    @Test func aHandlerStillRunningAfterTheGracePeriodIsCancelledAndTheWorkerEnds() async throws {
        let broker = try BusHarness.broker()
        let leaving = try BusHarness.echoWorker(broker.endpoint, workers: 1, gracePeriod: .milliseconds(200))
        let client = try BusHarness.client(broker.endpoint)
        let group = ServiceGroup(services: [leaving], logger: .init(label: "leaving"))
        try await BusHarness.with([broker, client]) {
            let running = Task { try await group.run() }
            #expect(await BusHarness.waitForService("echo", client: client))
            let slow = Task { try await client.call(Repeat.self, .init(text: "slow", delayMilliseconds: 30_000), options: CallOptions(timeout: .seconds(2))) }
            try await Task.sleep(for: .milliseconds(200))
            let shutdown = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await running.value
            #expect(shutdown.duration(to: .now) < .seconds(10))
            // Nobody else serves echo: the cancelled call's retries find no worker until its deadline.
            await #expect(throws: OperationError.self) { try await slow.value }
        }
    }

    static func currentThreadName() -> String {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
        return name.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func callsInFlightSurviveABrokerRestart() async throws {
        let endpoint = Ports.freeEndpoint()
        let first = try BusHarness.broker { $0.endpoint = endpoint }
        let echo = try BusHarness.echoWorker(endpoint, workers: 4)
        let client = try BusHarness.client(endpoint)
        try await BusHarness.with([echo, client]) {
            let firstRun = Task { try await first.run() }
            #expect(await BusHarness.waitForService("echo", client: client))
            let options = CallOptions(timeout: .seconds(10))
            // Calls that will be in the handlers when the broker goes away.
            async let slow = withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<8 {
                    group.addTask { try await client.call(Repeat.self, .init(text: "s\(index)", delayMilliseconds: 300), options: options).text }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            try await Task.sleep(for: .milliseconds(100))
            first.stop()
            _ = await firstRun.result
            let restarted = ContinuousClock.now
            let second = try BusHarness.broker { $0.endpoint = endpoint }
            let secondRun = Task { try await second.run() }
            #expect(await BusHarness.waitForService("echo", client: client))
            // Workers are back within three heartbeats (100 ms each here) plus reconnect slack; the bound
            // leaves room for a machine the parallel suite loads (the bus benchmark measures the real figure).
            #expect(restarted.duration(to: .now) < .seconds(3))
            #expect(try await slow.sorted() == (0..<8).map { "s\($0)" })
            secondRun.cancel()
            _ = await secondRun.result
        }
    }
}
