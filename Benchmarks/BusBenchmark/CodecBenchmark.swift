import TestSupport
import Contracts
import Envelope
import Foundation

/// The JSON work of one echo call: the client encodes the request and decodes the reply, the worker
/// decodes the request and encodes the reply, the broker and client peek at a few attributes.
enum CodecBenchmark {
    static func run(iterations: Int) throws -> [(String, Double)] {
        let codec = EnvelopeCodec()
        let attributes = RequestAttributes(
            source: "urn:melon:bench", type: Echo.Message.Repeat.type, traceParent: TraceParent.random().description,
            expiryTime: Date().addingTimeInterval(10))
        let request = RequestEnvelope(attributes: attributes, data: Echo.Message.Repeat.Request(text: String(repeating: "m", count: 64)))
        let requestBytes = try codec.encode(request)
        let reply = ReplyEnvelope(answering: attributes, source: "urn:melon:echo", result: .success(Echo.Message.Repeat.Response(text: "m", worker: "w")))
        let replyBytes = try codec.encode(reply)
        func time(_ name: String, _ body: () throws -> Void) rethrows -> (String, Double) {
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<iterations { try body() }
            let elapsed = start.duration(to: clock.now)
            return (name, (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(iterations))
        }
        return [
            try time("encode request") { _ = try codec.encode(request) },
            try time("decode request") { _ = try codec.decode(RequestEnvelope<Echo.Message.Repeat.Request>.self, from: requestBytes) },
            try time("encode reply") { _ = try codec.encode(reply) },
            try time("decode reply") { _ = try codec.decode(ReplyEnvelope<Echo.Message.Repeat.Response>.self, from: replyBytes) },
            time("peek request (broker)") { _ = JSONPeek.strings(["id", "type", "expirytime"], in: requestBytes) },
            time("new request attributes") { _ = RequestAttributes(source: "urn:melon:bench", type: "t", traceParent: TraceParent.random().description) },
        ]
    }
}
