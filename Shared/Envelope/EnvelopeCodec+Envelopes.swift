import Foundation

/// Envelopes without Codable's cost for the attributes: they are written and read directly, and only
/// the `data` member goes through JSONEncoder and JSONDecoder. The result is the same JSON that the
/// envelopes' Codable conformances produce and accept (EnvelopeCodecTests checks both ways).
extension EnvelopeCodec {
    public func encode<Payload>(_ envelope: RequestEnvelope<Payload>) throws(OperationError) -> [UInt8] {
        try encodeRequest(envelope.attributes, data: try encodePayload(envelope.data))
    }

    /// A request whose `data` is already JSON (an outbox row, say), written as it is.
    public func encodeRequest(_ a: RequestAttributes, data: some Collection<UInt8>) throws(OperationError) -> [UInt8] {
        var writer = JSONObjectWriter(capacity: data.count + 512)
        writer.context(specVersion: a.specVersion, id: a.id, source: a.source, type: a.type, time: a.time)
        writer.member("datacontenttype", a.dataContentType)
        writer.member("traceparent", a.traceParent)
        writer.member("expirytime", a.expiryTime.map(RFC3339.string(from:)))
        writer.member("idempotencykey", a.idempotencyKey)
        writer.member("authtype", a.authType)
        writer.member("authid", a.authID)
        writer.member("authclaims", a.authClaims)
        writer.member("clientip", a.clientIP)
        writer.member("data", json: data)
        return try checkSize(writer.finish())
    }

    public func encode<Payload>(_ envelope: ReplyEnvelope<Payload>) throws(OperationError) -> [UInt8] {
        let data: Data
        switch envelope.result {
        case .success(let payload): data = try encodePayload(payload)
        case .failure(let error): data = try encodePayload(error)
        }
        let a = envelope.attributes
        var writer = JSONObjectWriter(capacity: data.count + 320)
        writer.context(specVersion: a.specVersion, id: a.id, source: a.source, type: a.type, time: a.time)
        writer.member("correlationid", a.correlationID)
        writer.member("outcome", a.outcome.description)
        writer.member("data", json: data)
        return try checkSize(writer.finish())
    }

    public func decode<Payload>(_ type: RequestEnvelope<Payload>.Type, from bytes: [UInt8]) throws(OperationError) -> RequestEnvelope<Payload> {
        let reader = try reader(bytes)
        var attributes = RequestAttributes(
            id: try reader.string("id", required: true)!,
            source: try reader.string("source", required: true)!,
            type: try reader.string("type", required: true)!,
            time: try reader.date("time", required: true)!,
            traceParent: try reader.string("traceparent"),
            expiryTime: try reader.date("expirytime"),
            idempotencyKey: try reader.string("idempotencykey"),
            authType: try reader.string("authtype"),
            authID: try reader.string("authid"),
            authClaims: try reader.string("authclaims"),
            clientIP: try reader.string("clientip"))
        attributes.specVersion = try reader.string("specversion", required: true)!
        attributes.dataContentType = try reader.string("datacontenttype")
        return RequestEnvelope(attributes: attributes, data: try decodePayload(Payload.self, from: try reader.raw("data")))
    }

    public func decode<Payload>(_ type: ReplyEnvelope<Payload>.Type, from bytes: [UInt8]) throws(OperationError) -> ReplyEnvelope<Payload> {
        let reader = try reader(bytes)
        let outcome: Outcome
        switch try reader.string("outcome", required: true)! {
        case "ok": outcome = .ok
        case let code: outcome = .error(ErrorCode(rawValue: code) ?? .internal)
        }
        let attributes = ReplyAttributes(
            specVersion: try reader.string("specversion", required: true)!,
            id: try reader.string("id", required: true)!,
            source: try reader.string("source", required: true)!,
            type: try reader.string("type", required: true)!,
            time: try reader.date("time", required: true)!,
            correlationID: try reader.string("correlationid"),
            outcome: outcome)
        let data = try reader.raw("data")
        switch outcome {
        case .ok: return ReplyEnvelope(attributes: attributes, result: .success(try decodePayload(Payload.self, from: data)))
        case .error: return ReplyEnvelope(attributes: attributes, result: .failure(try decodePayload(OperationError.self, from: data)))
        }
    }

    private func reader(_ bytes: [UInt8]) throws(OperationError) -> JSONObjectReader {
        _ = try checkSize(bytes)
        return try JSONObjectReader(bytes)
    }

    private func checkSize(_ bytes: [UInt8]) throws(OperationError) -> [UInt8] {
        guard bytes.count <= maxBytes else {
            throw OperationError(.tooLarge, "the message is \(bytes.count) bytes; the limit is \(maxBytes)")
        }
        return bytes
    }
}

extension JSONObjectWriter {
    /// The CloudEvents context attributes every request and reply carries.
    mutating func context(specVersion: String, id: String, source: String, type: String, time: Date) {
        member("specversion", specVersion)
        member("id", id)
        member("source", source)
        member("type", type)
        member("time", RFC3339.string(from: time))
    }
}
