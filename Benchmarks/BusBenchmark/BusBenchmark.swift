import Bus
import Contracts
import Foundation
import Logging
import ServiceLifecycle
import TestSupport
import ZeroMQ

/// `bus-benchmark`: echo requests per second and latency through a real broker and worker process,
/// with 1 and with 64 requests in flight, in the clear and with CurveZMQ, beside a raw libzmq
/// REQ/REP round trip in the same run.
///
///     swift build -c release && .build/release/bus-benchmark [--runs 3] [--requests 20000]
@main
struct BusBenchmark {
    static let usage = """
        usage: bus-benchmark [--runs N] [--requests N] [--workers N] [--connections N] [--phase-deadline SECONDS]
               bus-benchmark --codec [--requests N]      the envelope work of one call
               bus-benchmark --handoff [--runs N] [--requests N]   a task -> I/O thread -> task round trip
               bus-benchmark --brokers [--runs N] [--requests N]   1, 2 and 3 brokers, and a broker's death

        Echo calls through a broker and an echo-worker started as processes (from the folder of this
        executable: build them first with swift build -c release --product broker --product echo-worker),
        in the clear and with CurveZMQ, with 1 and with 64 in flight, beside raw libzmq REQ/REP and
        DEALER/ROUTER echoes, direct and through a forwarder (a thread, then processes: the floor under a
        broker), in the same run; medians over the runs and CURVE's cost as a ratio.
          --runs N               measurement rounds (default 3)
          --requests N           calls per 64-in-flight measurement (default 20000; a quarter with 1 in flight)
          --workers N            requests the echo-worker serves at once (default 16)
          --connections N        worker connections they are spread over (default 2, as WORKER_CONNECTIONS)
          --phase-deadline S     seconds any one phase may take before the run stops naming it (default 120)
          --only NAME            run only the measurements whose name contains NAME, without warm-up (for
                                 perf stat: the difference of two runs with different --requests is per call)
        """

    /// Why the run stopped, said in one line.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func main() async {
        do {
            try await run(CommandLine.arguments)
        } catch {
            FileHandle.standardError.write(Data("bus-benchmark: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ arguments: [String]) async throws {
        if arguments.contains("--help") || arguments.contains("-h") { return print(usage) }
        func option(_ name: String, _ fallback: Int) throws -> Int {
            guard let index = arguments.firstIndex(of: name) else { return fallback }
            guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0 else {
                throw Failure(description: "\(name) takes a positive whole number (see --help)")
            }
            return value
        }
        let runs = try option("--runs", 3), requests = try option("--requests", 20_000), workers = try option("--workers", 16)
        let connections = try option("--connections", 2)
        let deadline = Duration.seconds(try option("--phase-deadline", 120))
        let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        if let index = arguments.firstIndex(of: "--serve-raw") { try serveRaw(Array(arguments[(index + 1)...])) }
        if arguments.contains("--codec") {
            for (name, micros) in try CodecBenchmark.run(iterations: requests) { print(name.padding(toLength: 32, withPad: " ", startingAt: 0) + String(format: "%8.1f us", micros)) }
            return
        }
        if arguments.contains("--brokers") {
            return try await BrokerSetBenchmark.run(runs: runs, requests: requests, workers: workers)
        }
        if arguments.contains("--handoff") {
            for _ in 0..<runs {
                print(try await phase("hand-off", deadline: deadline) { try await HandoffBenchmark.run(roundTrips: requests) }.row("task -> I/O thread -> task"))
            }
            return
        }
        for helper in ["broker", "echo-worker"] where !FileManager.default.isExecutableFile(atPath: BuildProducts.path(helper)) {
            throw Failure(description: "the helper executable \(helper) is not beside this one; build it first: swift build -c release --product \(helper)")
        }

        // The same broker and worker twice: in the clear, and with CurveZMQ as separate processes run it.
        let clear = try Stack(workers: workers, connections: connections, curve: false)
        let curve = try Stack(workers: workers, connections: connections, curve: true)
        defer {
            clear.stop()
            curve.stop()
        }
        for stack in [clear, curve] {
            guard await eventually(timeout: .seconds(10), { try await stack.client.isAvailable(service: "echo") }) else {
                throw Failure(description: "the echo worker did not register within 10 s; broker log: \(stack.broker.logPath), worker log: \(stack.worker.logPath)")
            }
        }
        // The broker, the worker and the client in this one process, as `melon` runs them: over tcp
        // loopback, and over inproc (one shared libzmq context, no libzmq I/O thread in the path).
        let inProcessTCP = try InProcessStack(endpoint: "tcp://127.0.0.1:*", workers: workers, connections: connections)
        let inProcess = try InProcessStack(endpoint: "inproc://bus-benchmark", workers: workers, connections: connections)
        let inProcessTasks = [inProcessTCP, inProcess].map { stack in Task { try await BusHarness.with(stack.services) { try await Task.sleep(for: .seconds(86_400)) } } }
        defer { for task in inProcessTasks { task.cancel() } }
        for stack in [inProcessTCP, inProcess] {
            guard await eventually(timeout: .seconds(10), { try await stack.client.isAvailable(service: "echo") }) else {
                throw Failure(description: "the in-process echo worker did not register within 10 s")
            }
        }
        print("bus benchmark: \(requests) requests per measurement, \(runs) runs, echo of a 64-byte text, \(workers) at once over \(connections) worker connections")
        print("measurement                                                 req/s      p50 us     p99 us")
        var table: [String: [Result]] = [:]
        func measure(_ name: String, _ body: @escaping @Sendable () async throws -> Result) async throws {
            guard only.map(name.contains) ?? true else { return }
            table[name, default: []].append(try await phase(name, deadline: deadline, body))
        }
        for run in 1...runs {
            for (name, client) in [("bus", clear.client), ("bus with CURVE", curve.client), ("one process, tcp", inProcessTCP.client),
                                   ("one process, inproc", inProcess.client)] {
                if only == nil {
                    _ = try await phase("\(name), warm-up", deadline: deadline) { try await measureBus(client: client, inFlight: 64, requests: requests / 4) }
                }
                try await measure("\(name), 1 in flight") { try await measureBus(client: client, inFlight: 1, requests: requests / 4) }
                try await measure("\(name), 64 in flight") { try await measureBus(client: client, inFlight: 64, requests: requests) }
            }
            try await measure("raw libzmq REQ/REP, 1 in flight") { try rawRequestReply(requests: requests / 4, deadline: deadline) }
            try await measure("raw libzmq DEALER/ROUTER, 64 in flight") { try rawPipelined(requests: requests, inFlight: 64, deadline: deadline) }
            try await measure("raw libzmq via a forwarder, 1 in flight") {
                try rawPipelined(requests: requests / 4, inFlight: 1, path: .forwarderThread, deadline: deadline)
            }
            try await measure("raw libzmq via a forwarder, 64 in flight") {
                try rawPipelined(requests: requests, inFlight: 64, path: .forwarderThread, deadline: deadline)
            }
            try await measure("raw libzmq via forwarder processes, 1 in flight") {
                try rawPipelined(requests: requests / 4, inFlight: 1, path: .forwarderProcesses, deadline: deadline)
            }
            try await measure("raw libzmq via forwarder processes, 64 in flight") {
                try rawPipelined(requests: requests, inFlight: 64, path: .forwarderProcesses, deadline: deadline)
            }
            try await measure("raw libzmq via balancing processes, 64 in flight") {
                try rawPipelined(requests: requests, inFlight: 64, path: .balancingProcesses(connections: workers), deadline: deadline)
            }
            print("run \(run) done")
        }
        let names = ["raw libzmq REQ/REP, 1 in flight", "raw libzmq DEALER/ROUTER, 64 in flight", "raw libzmq via a forwarder, 1 in flight",
                     "raw libzmq via a forwarder, 64 in flight", "raw libzmq via forwarder processes, 1 in flight",
                     "raw libzmq via forwarder processes, 64 in flight", "raw libzmq via balancing processes, 64 in flight", "bus, 1 in flight", "bus, 64 in flight",
                     "bus with CURVE, 1 in flight", "bus with CURVE, 64 in flight", "one process, tcp, 1 in flight", "one process, tcp, 64 in flight",
                     "one process, inproc, 1 in flight", "one process, inproc, 64 in flight"]
        for name in names where table[name] != nil {
            for result in table[name]! { print(result.row(name)) }
            print(Result.median(table[name]!).row(name + " (median)"))
        }
        // Ratios within each run, then their median: CURVE's cost without the machine's drift between runs.
        for inFlight in [1, 64] where only == nil {
            let ratios = zip(table["bus with CURVE, \(inFlight) in flight"]!, table["bus, \(inFlight) in flight"]!).map { $0.perSecond / $1.perSecond }
            print(String(format: "CURVE on / off, %d in flight (req/s, median of runs): %.2f", inFlight, ratios.sorted()[ratios.count / 2]))
        }
    }

    /// Runs one phase of the benchmark, or fails naming it once `deadline` has passed. A phase stuck
    /// in a blocking receive ends at its socket's receive timeout, which is the same deadline.
    static func phase<T: Sendable>(_ name: String, deadline: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                do { return try await body() } catch { throw Failure(description: "the phase \"\(name)\" failed: \(error)") }
            }
            group.addTask {
                try await Task.sleep(for: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let result = try await group.next(), let value = result else {
                throw Failure(description: "the phase \"\(name)\" did not finish within \(deadline.components.seconds) s")
            }
            return value
        }
    }

    /// A broker, an echo worker runtime and a client in this process, sharing one libzmq context.
    struct InProcessStack {
        let services: [any Service]
        let client: BusClient

        init(endpoint: String, workers: Int, connections: Int) throws {
            let context = try ZMQContext()
            let broker = try Broker(
                configuration: BrokerConfiguration(endpoint: endpoint, eventsEndpoint: nil, eventsPublishEndpoint: nil), context: context,
                logger: Logger(label: "broker", factory: { _ in SwiftLogNoOpLogHandler() }))
            let bound = broker.endpoint
            let worker = try WorkerRuntime(
                registry: EchoService.registry(), configuration: WorkerConfiguration(endpoint: bound, workers: workers, connections: connections), context: context,
                logger: Logger(label: "echo", factory: { _ in SwiftLogNoOpLogHandler() }))
            client = try BusClient(configuration: ClientConfiguration(endpoint: bound, processName: "bus-benchmark"), context: context)
            services = [broker, worker, client]
        }
    }

    /// A broker and an echo worker as separate processes, and a client of them; with `curve`, every
    /// connection uses CurveZMQ with keys made for the run.
    struct Stack {
        let broker: ChildProcess
        let worker: ChildProcess
        let client: BusClient
        let clientTask: Task<Void, any Error>

        init(workers: Int, connections: Int, curve: Bool) throws {
            let endpoint = Ports.freeEndpoint()
            let environment = ["BROKER_ENDPOINT": endpoint, "EVENTS_ENDPOINT": "", "LOG_LEVEL": "warning", "BUS_CURVE": curve ? "on" : "off"]
            var brokerEnvironment = environment, workerEnvironment = environment.merging(["WORKERS": "\(workers)", "WORKER_CONNECTIONS": "\(connections)"]) { $1 }
            var credentials: BusCredentials?
            if curve {
                let brokerKeys = try CurveKeyPair.generate(), echoKeys = try CurveKeyPair.generate(), clientKeys = try CurveKeyPair.generate()
                brokerEnvironment["BUS_SECRET_KEY"] = brokerKeys.secretKey
                brokerEnvironment["BUS_MEMBERS"] = "echo:\(echoKeys.publicKey),bus-benchmark:\(clientKeys.publicKey)"
                workerEnvironment["BUS_SECRET_KEY"] = echoKeys.secretKey
                workerEnvironment["BUS_BROKER_KEY"] = brokerKeys.publicKey
                credentials = BusCredentials(keyPair: clientKeys, brokerKey: brokerKeys.publicKey)
            }
            broker = try ChildProcess(product: "broker", environment: brokerEnvironment, name: curve ? "broker-curve" : "broker")
            worker = try ChildProcess(product: "echo-worker", environment: workerEnvironment, name: curve ? "echo-curve" : "echo")
            let client = try BusClient(configuration: ClientConfiguration(endpoint: endpoint, processName: "bus-benchmark", credentials: credentials))
            self.client = client
            clientTask = Task { try await client.run() }
        }

        /// Released at the end of the run: what has not stopped by then is killed.
        func stop() {
            clientTask.cancel()
            worker.signalTerminate()
            broker.signalTerminate()
        }
    }

    struct Result {
        var perSecond: Double
        var p50: Double
        var p99: Double

        func row(_ name: String) -> String {
            name.padding(toLength: 58, withPad: " ", startingAt: 0)
                + String(format: "%9.0f  %10.1f %10.1f", perSecond, p50, p99)
        }

        static func median(_ results: [Result]) -> Result {
            func mid(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
            return Result(perSecond: mid(results.map(\.perSecond)), p50: mid(results.map(\.p50)), p99: mid(results.map(\.p99)))
        }

        init(perSecond: Double, p50: Double, p99: Double) {
            self.perSecond = perSecond
            self.p50 = p50
            self.p99 = p99
        }

        init(latencies: [Duration], elapsed: Duration) {
            let micros = latencies.map { Double($0.components.attoseconds) / 1e12 + Double($0.components.seconds) * 1e6 }.sorted()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            self.init(
                perSecond: Double(latencies.count) / seconds,
                p50: micros[micros.count / 2],
                p99: micros[min(micros.count - 1, micros.count * 99 / 100)])
        }
    }

    static let text = String(repeating: "m", count: 64)

    static func measureBus(client: BusClient, inFlight: Int, requests: Int) async throws -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for lane in 0..<inFlight {
                group.addTask {
                    var mine: [Duration] = []
                    for _ in stride(from: lane, to: requests, by: inFlight) {
                        let sent = clock.now
                        let reply = try await client.call(Echo.Message.Repeat.self, .init(text: text))
                        precondition(reply.text == text)
                        mine.append(sent.duration(to: clock.now))
                    }
                    return mine
                }
            }
            return try await group.reduce(into: [Duration]()) { $0 += $1 }
        }
        return Result(latencies: latencies, elapsed: start.duration(to: clock.now))
    }
}
