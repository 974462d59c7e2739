import Foundation
import Testing
@testable import ZeroMQ

@Suite(.timeLimit(.minutes(2))) struct SocketTests {
    let context = try! ZMQContext()

    private func pair() throws -> (ZMQSocket, ZMQSocket) {
        let server = try ZMQSocket(context, type: .router)
        try server.bind("tcp://127.0.0.1:*")
        let client = try ZMQSocket(context, type: .dealer)
        try client.set(.routingID, Array("client-1".utf8))
        try client.connect(server.lastEndpoint)
        return (server, client)
    }

    private func receive(_ socket: ZMQSocket, timeout: Duration = .seconds(5)) throws -> [Frame]? {
        var poller = Poller()
        poller.add(socket, events: .readable)
        guard try poller.poll(timeout: timeout) > 0 else { return nil }
        return try socket.receive()
    }

    @Test func multipartFramesKeepTheirExactBytes() throws {
        let (server, client) = try pair()
        let binary: Frame = (0...255).map { UInt8($0) }
        let large = Frame(repeating: 0xAB, count: 3 << 20)
        let utf8 = Array("naïve – 🍉".utf8)
        try #require(try client.send([[], binary, utf8, large, []]))
        let frames = try #require(try receive(server))
        #expect(frames.count == 6)
        #expect(frames[0] == Array("client-1".utf8))
        #expect(frames[1] == [])
        #expect(frames[2] == binary)
        #expect(frames[3] == utf8)
        #expect(frames[4].count == 3 << 20 && frames[4] == large)
        #expect(frames[5] == [])
    }

    @Test func receiveWithoutWaitingReturnsNilWhenNothingIsQueued() throws {
        let (server, _) = try pair()
        #expect(try server.receive() == nil)
    }

    @Test func pollTimesOutWithoutTraffic() throws {
        let (server, _) = try pair()
        var poller = Poller()
        poller.add(server, events: .readable)
        let start = ContinuousClock.now
        #expect(try poller.poll(timeout: .milliseconds(50)) == 0)
        #expect(start.duration(to: .now) >= .milliseconds(45))
    }

    @Test func failuresCarryTheErrno() throws {
        let socket = try ZMQSocket(context, type: .dealer)
        #expect {
            try socket.connect("nonsense://nowhere")
        } throws: { error in
            (error as? ZMQError)?.errno == EPROTONOSUPPORT && (error as? ZMQError)?.operation.hasPrefix("zmq_connect") == true
        }
    }

    @Test func closingWithUnsentMessagesDoesNotHangTheContext() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, type: .dealer, linger: .seconds(60))
        try socket.connect("tcp://127.0.0.1:1")  // nobody listens: the message stays queued
        try #require(try socket.send([Array("stuck".utf8)]))
        let start = ContinuousClock.now
        socket.close(linger: .zero)
        context.shutdown()
        #expect(start.duration(to: .now) < .seconds(1))
    }

    @Test func integerOptionsRoundTrip() throws {
        let socket = try ZMQSocket(context, type: .dealer)
        try socket.set(.sendHighWaterMark, 1234)
        #expect(try socket.get(.sendHighWaterMark) == 1234)
        #expect(try socket.get(.linger) == 0)
    }

    @Test func monitorReportsConnectionAndDisconnection() throws {
        let server = try ZMQSocket(context, type: .router)
        try server.bind("tcp://127.0.0.1:*")
        let client = try ZMQSocket(context, type: .dealer)
        let monitor = try client.monitor("inproc://socket-tests-monitor", events: [.handshakeSucceeded, .disconnected])
        try client.connect(server.lastEndpoint)
        let connected = try #require(try receive(monitor).flatMap(MonitorEvent.init(frames:)))
        #expect(connected.kind == .handshakeSucceeded)
        #expect(connected.endpoint == server.lastEndpoint)
        server.close()
        let lost = try #require(try receive(monitor).flatMap(MonitorEvent.init(frames:)))
        #expect(lost.kind == .disconnected)
        client.stopMonitor()
    }

    /// Two messages arrive together; taking the first also takes in libzmq's only signal for the pair,
    /// so the second is announced by no descriptor. The poller must still see it, at once.
    @Test func pollSeesAMessageWaitingBehindOneJustReceived() throws {
        let (server, client) = try pair()
        try #require(try client.send([Array("hello".utf8)]))
        let address = try #require(try receive(server))[0]
        try #require(try server.send([address, Array("one".utf8)]))
        try #require(try server.send([address, Array("two".utf8)]))
        #expect(try receive(client) == [Array("one".utf8)])
        // Let both messages settle in the client's pipe, so no new signal can come for the second.
        Thread.sleep(forTimeInterval: 0.1)
        var poller = Poller()
        let index = poller.add(client, events: .readable)
        let start = ContinuousClock.now
        #expect(try poller.poll(timeout: .seconds(2)) == 1)
        #expect(start.duration(to: .now) < .seconds(1))
        #expect(poller.ready(index) == .readable)
        #expect(try client.receive() == [Array("two".utf8)])
    }

    /// A socket that is quiet and a descriptor that is readable: only the descriptor is reported.
    @Test func pollReportsAPlainDescriptorBesideAQuietSocket() throws {
        let (server, _) = try pair()
        let mailbox = try Mailbox<Int>()
        var poller = Poller()
        let socketIndex = poller.add(server, events: .readable)
        let mailboxIndex = poller.add(fd: mailbox.descriptor, events: .readable)
        mailbox.post(7)
        #expect(try poller.poll(timeout: .seconds(2)) == 1)
        #expect(poller.ready(mailboxIndex) == .readable)
        #expect(poller.ready(socketIndex) == [])
        #expect(mailbox.take() == [7])
        #expect(try poller.poll(timeout: .milliseconds(50)) == 0)
    }
}
