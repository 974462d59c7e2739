import Foundation
import Testing
@testable import Envelope

@Suite struct EnvelopeCodecTests {
    struct Payload: Codable, Sendable, Equatable {
        var name: String
        var items: [Item]
        struct Item: Codable, Sendable, Equatable { var amountCents: Int }
    }

    let codec = EnvelopeCodec()

    private func request(_ json: String) throws(OperationError) -> RequestEnvelope<Payload> {
        try codec.decode(RequestEnvelope<Payload>.self, from: Array(json.utf8))
    }

    private let valid = #"{"specversion":"1.0","id":"r1","source":"urn:melon:test","type":"t.x.y.v1","time":"2026-11-21T14:29:29.123Z","data":{"name":"n","items":[{"amountCents":5}]}}"#

    @Test func requestsRoundTripWithEveryAttribute() throws {
        let attributes = RequestAttributes(
            id: "id-1", source: "urn:melon:gateway", type: "household.chore.complete.v1",
            time: Date(timeIntervalSince1970: 1_795_271_369.5), traceParent: TraceParent.random().description,
            expiryTime: Date(timeIntervalSince1970: 1_795_271_379), idempotencyKey: "k-1",
            authType: "user", authID: "u-1", authClaims: #"{"univ":"tcd"}"#)
        let original = RequestEnvelope(attributes: attributes, data: Payload(name: "x", items: [.init(amountCents: 1)]))
        let bytes = try codec.encode(original)
        let json = String(decoding: bytes, as: UTF8.self)
        for key in ["\"specversion\":\"1.0\"", "\"expirytime\":\"2026-11-21T14:29:39.000Z\"", "\"idempotencykey\":\"k-1\"", "\"authid\":\"u-1\"", "\"datacontenttype\":\"application/json\""] {
            #expect(json.contains(key), "missing \(key) in \(json)")
        }
        let decoded = try codec.decode(RequestEnvelope<Payload>.self, from: bytes)
        #expect(decoded.attributes == attributes)
        #expect(decoded.data == original.data)
    }

    @Test func unknownAttributesAreTolerated() throws {
        let json = valid.replacingOccurrences(of: #""id":"r1""#, with: #""id":"r1","futureattribute":{"x":[1,2]},"partitionkey":"p""#)
        #expect(try request(json).attributes.id == "r1")
    }

    @Test func missingFieldsAreInvalidAndNamed() {
        #expect(throws: OperationError.invalid(field: "data.items[0].amountCents", "is required")) {
            try request(valid.replacingOccurrences(of: #"{"amountCents":5}"#, with: "{}"))
        }
        #expect(throws: OperationError.invalid(field: "id", "is required")) {
            try request(valid.replacingOccurrences(of: #""id":"r1","#, with: ""))
        }
    }

    @Test func wrongTypesAreInvalidAndNamed() {
        #expect(throws: OperationError.invalid(field: "data.name", "must be a string")) {
            try request(valid.replacingOccurrences(of: #""name":"n""#, with: #""name":7"#))
        }
        #expect(throws: OperationError.invalid(field: "data.items", "must be an array")) {
            try request(valid.replacingOccurrences(of: #"[{"amountCents":5}]"#, with: #""many""#))
        }
    }

    @Test func badTimesAreInvalidAndNamed() {
        do {
            _ = try request(valid.replacingOccurrences(of: "2026-11-21T14:29:29.123Z", with: "yesterday"))
            Issue.record("a bad time was accepted")
        } catch {
            #expect(error.code == .invalid)
            #expect(error.fields.map(\.field) == ["time"])
        }
    }

    @Test(arguments: ["", "{", "not json", "[]", "{\"id\":}"])
    func malformedJSONIsInvalid(_ text: String) {
        #expect(throws: OperationError.self) { try request(text) }
        do { _ = try request(text) } catch { #expect(error.code == .invalid) }
    }

    @Test func oversizedInputIsTooLargeBeforeAnyParsing() {
        let small = EnvelopeCodec(maxBytes: 64)
        do {
            _ = try small.decode(RequestEnvelope<Payload>.self, from: Array(valid.utf8))
            Issue.record("an oversized envelope was accepted")
        } catch {
            #expect(error.code == .tooLarge)
            #expect(error.message.contains("limit is 64"))
        }
        #expect(throws: OperationError.self) { try small.encode(Payload(name: String(repeating: "x", count: 100), items: [])) }
    }

    @Test func repliesCarryEitherTheResultOrTheError() throws {
        let request = try request(valid).attributes
        let ok = ReplyEnvelope(answering: request, source: "urn:melon:test", result: .success(Payload(name: "ok", items: [])))
        let okJSON = String(decoding: try codec.encode(ok), as: UTF8.self)
        #expect(okJSON.contains(#""outcome":"ok""#) && okJSON.contains(#""correlationid":"r1""#) && okJSON.contains(#""type":"t.x.y.v1.reply""#))
        let failure = OperationError.invalid(field: "data.name", "is too long")
        let bad = ReplyEnvelope<Payload>(answering: request, source: "urn:melon:test", result: .failure(failure))
        let badBytes = try codec.encode(bad)
        #expect(String(decoding: badBytes, as: UTF8.self).contains(#""outcome":"invalid""#))
        let decoded = try codec.decode(ReplyEnvelope<Payload>.self, from: badBytes)
        #expect(decoded.attributes.correlationID == "r1")
        #expect(throws: failure) { try decoded.result.get() }
    }

    @Test func unknownErrorCodesFromNewerPeersReadAsInternal() throws {
        let json = #"{"specversion":"1.0","id":"x","source":"s","type":"t.reply","time":"2026-11-21T14:29:29Z","outcome":"teapot","data":{"code":"teapot","message":"m"}}"#
        let reply = try codec.decode(ReplyEnvelope<Payload>.self, from: Array(json.utf8))
        #expect(reply.attributes.outcome == .error(.internal))
    }
}
