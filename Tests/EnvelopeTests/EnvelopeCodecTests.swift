import Foundation
import Testing
@testable import Envelope

@Suite(.timeLimit(.minutes(2))) struct EnvelopeCodecTests {
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
            authType: "user", authID: "u-1", authClaims: #"{"univ":"tcd"}"#, clientIP: "2001:db8::7")
        let original = RequestEnvelope(attributes: attributes, data: Payload(name: "x", items: [.init(amountCents: 1)]))
        let bytes = try codec.encode(original)
        let json = String(decoding: bytes, as: UTF8.self)
        for key in ["\"specversion\":\"1.0\"", "\"expirytime\":\"2026-11-21T14:29:39.000Z\"", "\"idempotencykey\":\"k-1\"", "\"authid\":\"u-1\"", "\"clientip\":\"2001:db8::7\"", "\"datacontenttype\":\"application/json\""] {
            #expect(json.contains(key), "missing \(key) in \(json)")
        }
        let decoded = try codec.decode(RequestEnvelope<Payload>.self, from: bytes)
        #expect(decoded.attributes == attributes)
        #expect(decoded.data == original.data)
    }

    @Test func theCanonicalFormSortsKeysSoOneValueAlwaysGivesTheSameBytes() throws {
        struct Many: Codable { var zulu = 1, alpha = "a/b", mike: [String: Int] = ["z": 1, "a": 2, "m": 3], when = Date(timeIntervalSince1970: 0) }
        let bytes = try codec.canonical(Many())
        #expect(String(decoding: bytes, as: UTF8.self)
            == #"{"alpha":"a\/b","mike":{"a":2,"m":3,"z":1},"when":"1970-01-01T00:00:00.000Z","zulu":1}"#)
        for _ in 0..<20 { #expect(try codec.canonical(Many()) == bytes) }
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
    @Test func theDirectPathAndCodableAgreeBothWays() throws {
        let attributes = RequestAttributes(
            id: "q\"uote\\slash", source: "urn:melon:test", type: "t.x.y.v1", time: Date(timeIntervalSince1970: 1_795_271_369.25),
            traceParent: TraceParent.random().description, expiryTime: Date(timeIntervalSince1970: 1_795_271_379),
            idempotencyKey: "line\nbreak\u{1}", authType: "user", authID: "ünïcödé 🍉", authClaims: #"{"a":[1,2]}"#, clientIP: "203.0.113.9")
        let request = RequestEnvelope(attributes: attributes, data: Payload(name: "n", items: [.init(amountCents: -3)]))
        let direct = try codec.encode(request)
        let viaCodable = Array(try JSONEncoderForTests.make().encode(request))
        #expect(try JSONValue.parse(direct) == JSONValue.parse(viaCodable))
        let decoded = try codec.decode(RequestEnvelope<Payload>.self, from: viaCodable)
        #expect(decoded.attributes == attributes && decoded.data == request.data)

        // The wire keeps milliseconds: give the reply a time that has no finer part.
        let replyAttributes = ReplyAttributes(
            correlationID: attributes.id, requestType: attributes.type, source: "urn:melon:x", outcome: .error(.invalid),
            time: Date(timeIntervalSince1970: 1_795_271_369.5))
        let failure = ReplyEnvelope<Payload>(attributes: replyAttributes, result: .failure(.invalid(field: "data.name", "bad")))
        let replyDirect = try codec.encode(failure)
        #expect(try JSONValue.parse(replyDirect) == JSONValue.parse(Array(try JSONEncoderForTests.make().encode(failure))))
        let back = try codec.decode(ReplyEnvelope<Payload>.self, from: replyDirect)
        #expect(back.attributes == failure.attributes)
    }

    @Test func duplicateAttributesAreInvalid() {
        #expect(throws: OperationError.invalid(field: "id", "appears more than once")) {
            try request(valid.replacingOccurrences(of: #""id":"r1""#, with: #""id":"r1","id":"r2""#))
        }
    }

    @Test(arguments: [#"{"a":tru}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":"\x"}"#, #"{"a":[1,]}"#, #"{"a":1,}"#, #"{"a":1} x"#,
                      #"{"a":"\u12"}"#, #"{"a":{"b"}}"#, "{\"a\":" + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}"])
    func theScannerRefusesInvalidJSON(_ text: String) {
        #expect(JSONScanner.members(of: Array(text.utf8)) == nil)
    }

    @Test(arguments: [#"{}"#, #" {"a" : [1, -2.5e+3, true, false, null, {"b": "\u00e9\n"}] } "#, #"{"a":0,"b":-0.0,"c":1E9}"#])
    func theScannerAcceptsValidJSON(_ text: String) {
        #expect(JSONScanner.members(of: Array(text.utf8)) != nil)
    }
}

/// A JSONEncoder with the codec's conventions, to compare the Codable path with the direct one.
enum JSONEncoderForTests {
    static func make() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        return encoder
    }
}
