import Bus
import Foundation
import Testing
import TestSupport
import ZeroMQ

/// Our broker against peers that send and expect RFC 7 frames byte for byte.
@Suite(.timeLimit(.minutes(2))) struct BrokerGoldenFrameTests {
    let context = try! ZMQContext()
    /// These raw peers never heartbeat on their own; a long liveness keeps the broker from expiring them.
    let patient = Heartbeat(interval: .milliseconds(100), liveness: 100)

    @Test func workerAndClientCommandsInBothDirections() async throws {
        let broker = try BusHarness.broker(heartbeat: patient)
        try await BusHarness.with([broker]) {
            let worker = try RawPeer(connectingTo: broker.endpoint, identity: "W1", context: context)
            let client = try RawPeer(connectingTo: broker.endpoint, identity: "C1", context: context)

            // Worker -> broker READY; broker -> worker HEARTBEAT. The frames are what this pins; the wait
            // is long because at the suite's start, with every stack starting on 2 cores, the first
            // heartbeat came after 2 s twice in full runs.
            try worker.send([Golden.empty, Golden.worker, Golden.ready, Golden.bytes("golden")])
            #expect(try await worker.receive(timeout: .seconds(10)) == [Golden.empty, Golden.worker, Golden.heartbeat])

            // Client -> broker request; broker -> worker REQUEST with the client's address.
            try client.send([Golden.empty, Golden.client, Golden.bytes("golden"), Golden.bytes("ping")])
            let request = try await worker.receive { $0.count > 3 }
            #expect(request == [Golden.empty, Golden.worker, Golden.request, Golden.bytes("C1"), Golden.empty, Golden.bytes("ping")])

            // Worker -> broker REPLY; broker -> client reply from the service.
            try worker.send([Golden.empty, Golden.worker, Golden.reply, Golden.bytes("C1"), Golden.empty, Golden.bytes("pong")])
            #expect(try await client.receive() == [Golden.empty, Golden.client, Golden.bytes("golden"), Golden.bytes("pong")])

            // Worker -> broker HEARTBEAT is accepted silently; DISCONNECT removes the worker.
            try worker.send([Golden.empty, Golden.worker, Golden.heartbeat])
            try client.send([Golden.empty, Golden.client, Golden.bytes("mmi.service"), Golden.bytes("golden")])
            #expect(try await client.receive() == [Golden.empty, Golden.client, Golden.bytes("mmi.service"), Golden.bytes("200")])
            try worker.send([Golden.empty, Golden.worker, Golden.disconnect])
            try await Task.sleep(for: .milliseconds(100))
            try client.send([Golden.empty, Golden.client, Golden.bytes("mmi.service"), Golden.bytes("golden")])
            #expect(try await client.receive() == [Golden.empty, Golden.client, Golden.bytes("mmi.service"), Golden.bytes("404")])
        }
    }

    @Test func brokerSaysDisconnectToAWorkerItDoesNotKnow() async throws {
        let broker = try BusHarness.broker(heartbeat: patient)
        try await BusHarness.with([broker]) {
            let stranger = try RawPeer(connectingTo: broker.endpoint, identity: "W9", context: context)
            try stranger.send([Golden.empty, Golden.worker, Golden.heartbeat])
            #expect(try await stranger.receive() == [Golden.empty, Golden.worker, Golden.disconnect])
        }
    }

    @Test func mmiEchoesEarlierFramesAndAnswers501ForUnknownMMIServices() async throws {
        let broker = try BusHarness.broker(heartbeat: patient)
        try await BusHarness.with([broker]) {
            let client = try RawPeer(connectingTo: broker.endpoint, identity: "C2", context: context)
            try client.send([Golden.empty, Golden.client, Golden.bytes("mmi.service"), Golden.bytes("token-7"), Golden.bytes("nobody")])
            #expect(try await client.receive() == [Golden.empty, Golden.client, Golden.bytes("mmi.service"), Golden.bytes("token-7"), Golden.bytes("404")])
            try client.send([Golden.empty, Golden.client, Golden.bytes("mmi.nonsense"), Golden.bytes("x")])
            #expect(try await client.receive() == [Golden.empty, Golden.client, Golden.bytes("mmi.nonsense"), Golden.bytes("501")])
        }
    }
}
