import Foundation
import TestSupport
import ZeroMQ

/// The raw libzmq measurements beside the bus: no broker of ours, no JSON, no Swift concurrency.
extension BusBenchmark {
    /// A REP thread and a REQ caller over tcp loopback: the floor under any broker round trip.
    static func rawRequestReply(requests: Int, deadline: Duration) throws -> Result {
        let context = try ZMQContext()
        let server = try echoServer(context, type: .rep, requests: requests, deadline: deadline)
        let client = try ZMQSocket(context, type: .req)
        try client.set(.receiveTimeout, Int32(deadline.milliseconds))
        try client.connect(server.endpoint)
        let payload = [UInt8](repeating: 0x6D, count: 300)  // about the size of an echo envelope
        let clock = ContinuousClock()
        var latencies: [Duration] = []
        latencies.reserveCapacity(requests)
        let start = clock.now
        for _ in 0..<requests {
            let sent = clock.now
            try client.send([payload], dontWait: false)
            guard try client.receive(dontWait: false) != nil else { throw Failure(description: "no echo within \(deadline.components.seconds) s") }
            latencies.append(sent.duration(to: clock.now))
        }
        let elapsed = start.duration(to: clock.now)
        _ = server.done.wait(timeout: .now() + .seconds(Int(deadline.components.seconds)))
        client.close()
        return Result(latencies: latencies, elapsed: elapsed)
    }

    /// A thread that answers `requests` messages on a bound socket of `type` with the same frames.
    static func echoServer(
        _ context: ZMQContext, type: SocketType, requests: Int, deadline: Duration
    ) throws -> (endpoint: String, done: DispatchSemaphore) {
        let server = try ZMQSocket(context, type: type)
        try server.set(.receiveTimeout, Int32(deadline.milliseconds))
        try server.bind("tcp://127.0.0.1:*")
        let endpoint = server.lastEndpoint
        let done = DispatchSemaphore(value: 0)
        let handoff = Handoff(server)
        Thread {
            let server = handoff.take()!
            for _ in 0..<requests {
                guard let frames = try? server.receive(dontWait: false) else { break }
                _ = try? server.send(frames, dontWait: false)
            }
            // Linger: a close without it drops the last echoes if they are still queued.
            server.close(linger: deadline)
            done.signal()
        }.start()
        return (endpoint, done)
    }

    /// Where the raw pipelined echo's messages go between the DEALER and the ROUTER echo.
    enum RawPath: Equatable {
        /// Straight to the echo thread, on the caller's context.
        case direct
        /// Through a forwarding thread; caller, forwarder and echo each on a context of its own.
        case forwarderThread
        /// Through a forwarder and an echo that are processes of their own, as a broker and a worker are.
        case forwarderProcesses
        /// As `forwarderProcesses`, but the echo process has `connections` connections to the
        /// forwarder and each holds one message at a time, as an MDP worker connection holds one
        /// request: the forwarder keeps the idle ones and hands each the next message in turn.
        case balancingProcesses(connections: Int)
    }

    /// A ROUTER echo and a DEALER keeping `inFlight` requests outstanding over tcp loopback: one hop,
    /// no broker, no JSON, no Swift concurrency; the floor under the pipelined bus figure. Through a
    /// forwarder (`path`), the least a broker does sits between them, a loop that moves each message
    /// from a ROUTER to a DEALER and back: the floor under a brokered call, with no code of ours in it.
    static func rawPipelined(requests: Int, inFlight: Int, path: RawPath = .direct, deadline: Duration) throws -> Result {
        let context = try ZMQContext()
        var finished: [DispatchSemaphore] = []
        var processes: [ChildProcess] = []
        defer { for process in processes { process.kill() } }
        let endpoint: String
        switch path {
        case .direct:
            let server = try echoServer(context, type: .router, requests: requests, deadline: deadline)
            finished = [server.done]
            endpoint = server.endpoint
        case .forwarderThread:
            let server = try echoServer(ZMQContext(), type: .router, requests: requests, deadline: deadline)
            let forwarder = try self.forwarder(to: server.endpoint, requests: requests, deadline: deadline)
            finished = [server.done, forwarder.done]
            endpoint = forwarder.endpoint
        case .forwarderProcesses:
            let echo = Ports.freeEndpoint()
            endpoint = Ports.freeEndpoint()
            let executable = BuildProducts.path("bus-benchmark")
            processes = [
                try ChildProcess(executable: executable, arguments: ["--serve-raw", "echo", echo], name: "raw-echo"),
                try ChildProcess(executable: executable, arguments: ["--serve-raw", "forwarder", endpoint, echo], name: "raw-forwarder"),
            ]
        case .balancingProcesses(let connections):
            let back = Ports.freeEndpoint()
            endpoint = Ports.freeEndpoint()
            let executable = BuildProducts.path("bus-benchmark")
            processes = [
                try ChildProcess(executable: executable, arguments: ["--serve-raw", "balancer", endpoint, back], name: "raw-balancer"),
                try ChildProcess(executable: executable, arguments: ["--serve-raw", "echoes", back, "\(connections)"], name: "raw-echoes"),
            ]
        }
        let client = try ZMQSocket(context, type: .dealer)
        // A blocking receive that waited forever once hung the whole run here.
        try client.set(.receiveTimeout, Int32(deadline.milliseconds))
        try client.connect(endpoint)
        if path != .direct && path != .forwarderThread {
            // The processes bind while the caller connects: one echo first, outside the measurement.
            try client.send([[0]], dontWait: false)
            guard try client.receive(dontWait: false) != nil else { throw Failure(description: "the raw forwarder processes did not echo") }
        }
        let clock = ContinuousClock()
        let origin = clock.now
        var latencies: [Duration] = []
        latencies.reserveCapacity(requests)
        func nanoseconds() -> Int64 {
            let (seconds, attoseconds) = origin.duration(to: clock.now).components
            return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }
        func stamp() -> Frame {
            withUnsafeBytes(of: nanoseconds()) { Frame($0) } + Frame(repeating: 0x6D, count: 284)
        }
        var sent = 0
        while sent < min(inFlight, requests) {
            try client.send([stamp()], dontWait: false)
            sent += 1
        }
        let start = clock.now
        while latencies.count < requests {
            guard let frames = try client.receive(dontWait: false) else { throw Failure(description: "no echo within \(deadline.components.seconds) s") }
            let then = frames[0].prefix(8).withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
            latencies.append(.nanoseconds(nanoseconds() - then))
            if sent < requests {
                try client.send([stamp()], dontWait: false)
                sent += 1
            }
        }
        let elapsed = start.duration(to: clock.now)
        for done in finished { _ = done.wait(timeout: .now() + .seconds(Int(deadline.components.seconds))) }
        client.close()
        return Result(latencies: latencies, elapsed: elapsed)
    }

    /// A thread with its own context that forwards between a bound ROUTER and a DEALER connected to
    /// `endpoint` until `requests` replies have gone back, or nothing has moved for `deadline`.
    static func forwarder(to endpoint: String, requests: Int, deadline: Duration) throws -> (endpoint: String, done: DispatchSemaphore) {
        let context = try ZMQContext()
        let front = try ZMQSocket(context, type: .router), back = try ZMQSocket(context, type: .dealer)
        try front.bind("tcp://127.0.0.1:*")
        try back.connect(endpoint)
        let bound = front.lastEndpoint
        let done = DispatchSemaphore(value: 0)
        let handoff = Handoff((front, back))
        Thread {
            let (front, back) = handoff.take()!
            forward(front: front, back: back, replies: requests, idle: deadline)
            // Linger: the last replies may still be in the socket's queue, and a close without it drops them.
            front.close(linger: deadline)
            back.close(linger: deadline)
            done.signal()
        }.start()
        return (bound, done)
    }

    /// Moves every message from `front` to `back` and back until `replies` have gone back or nothing
    /// has come for `idle` (nil: for ever).
    static func forward(front: ZMQSocket, back: ZMQSocket, replies limit: Int, idle: Duration?) {
        var poller = Poller()
        let frontIndex = poller.add(front, events: .readable), backIndex = poller.add(back, events: .readable)
        var replies = 0
        while replies < limit, (try? poller.poll(timeout: idle)) ?? 0 > 0 {
            if poller.ready(frontIndex).contains(.readable) {
                while let frames = try? front.receive() { _ = try? back.send(frames, dontWait: false) }
            }
            if poller.ready(backIndex).contains(.readable) {
                while let frames = try? back.receive() {
                    _ = try? front.send(frames, dontWait: false)
                    replies += 1
                }
            }
        }
    }

    /// Hands each message from `front` to an idle connection of `back` (which each announce with an
    /// empty frame, then hold one message at a time) and each answer back, for ever: the least an
    /// MDP broker does, with no code of ours, no JSON and no Swift concurrency.
    static func balance(front: ZMQSocket, back: ZMQSocket) throws -> Never {
        var poller = Poller()
        let frontIndex = poller.add(front, events: .readable), backIndex = poller.add(back, events: .readable)
        var idle: [Frame] = [], waiting: [[Frame]] = []
        idle.reserveCapacity(1024)
        while true {
            _ = try poller.poll(timeout: nil)
            if poller.ready(backIndex).contains(.readable) {
                // [connection, "" (ready)] or [connection, caller, payload].
                while let frames = try back.receive() {
                    idle.append(frames[0])
                    if frames.count == 3 { _ = try front.send(Array(frames[1...]), dontWait: false) }
                }
            }
            if poller.ready(frontIndex).contains(.readable) {
                while let frames = try front.receive() { waiting.append(frames) }
            }
            var next = 0
            while next < waiting.count, let connection = idle.popLast() {
                _ = try back.send([connection] + waiting[next], dontWait: false)
                next += 1
            }
            waiting.removeFirst(next)
        }
    }

    /// `connections` DEALERs to the balancer at `endpoint`, on one thread, each echoing one message
    /// at a time, as a worker process's connections serve one request each.
    static func echoes(connecting endpoint: String, connections: Int, context: ZMQContext) throws -> Never {
        var poller = Poller()
        var sockets: [ZMQSocket] = []
        for _ in 0..<connections {
            let socket = try ZMQSocket(context, type: .dealer)
            try socket.connect(endpoint)
            _ = try socket.send([[]], dontWait: false)
            _ = poller.add(socket, events: .readable)
            sockets.append(socket)
        }
        while true {
            _ = try poller.poll(timeout: nil)
            for (index, socket) in sockets.enumerated() where poller.ready(index).contains(.readable) {
                while let frames = try socket.receive() { _ = try socket.send(frames, dontWait: false) }
            }
        }
    }

    /// `bus-benchmark --serve-raw echo BIND`, `--serve-raw forwarder BIND CONNECT`, `--serve-raw
    /// balancer BIND BIND-BACK` and `--serve-raw echoes CONNECT N`: the raw peers as processes of
    /// their own, each on its own context; they run until killed.
    static func serveRaw(_ arguments: [String]) throws -> Never {
        let context = try ZMQContext()
        switch arguments.count {
        case 2 where arguments[0] == "echo":
            let socket = try ZMQSocket(context, type: .router)
            try socket.bind(arguments[1])
            while true {
                if let frames = try socket.receive(dontWait: false) { _ = try socket.send(frames, dontWait: false) }
            }
        case 3 where arguments[0] == "forwarder":
            let front = try ZMQSocket(context, type: .router), back = try ZMQSocket(context, type: .dealer)
            try front.bind(arguments[1])
            try back.connect(arguments[2])
            forward(front: front, back: back, replies: .max, idle: nil)
            exit(1)
        case 3 where arguments[0] == "balancer":
            let front = try ZMQSocket(context, type: .router), back = try ZMQSocket(context, type: .router)
            try front.bind(arguments[1])
            try back.bind(arguments[2])
            try balance(front: front, back: back)
        case 3 where arguments[0] == "echoes":
            guard let connections = Int(arguments[2]), connections > 0 else { throw Failure(description: "--serve-raw echoes takes a number of connections") }
            try echoes(connecting: arguments[1], connections: connections, context: context)
        default:
            throw Failure(description: "--serve-raw takes echo BIND, forwarder BIND CONNECT, balancer BIND BIND-BACK or echoes CONNECT N")
        }
    }
}
