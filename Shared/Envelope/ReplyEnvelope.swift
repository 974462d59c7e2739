import Foundation

/// The context attributes of a reply.
public struct ReplyAttributes: Codable, Sendable, Equatable {
    public var specVersion: String
    public var id: String
    /// `urn:melon:<process>` of the replier.
    public var source: String
    /// The request's type followed by `.reply`.
    public var type: String
    public var time: Date
    /// The `id` of the request answered; absent only when the request could not be read at all.
    public var correlationID: String?
    public var outcome: Outcome

    enum CodingKeys: String, CodingKey {
        case specVersion = "specversion", id, source, type, time, correlationID = "correlationid", outcome
    }

    /// Every attribute as read off the wire.
    init(specVersion: String, id: String, source: String, type: String, time: Date, correlationID: String?, outcome: Outcome) {
        self.specVersion = specVersion
        self.id = id
        self.source = source
        self.type = type
        self.time = time
        self.correlationID = correlationID
        self.outcome = outcome
    }

    public init(correlationID: String?, requestType: String?, source: String, outcome: Outcome, time: Date = Date()) {
        self.init(
            specVersion: "1.0", id: RandomID.uuid(), source: source, type: (requestType ?? "melon.unknown") + ".reply",
            time: time, correlationID: correlationID, outcome: outcome)
    }
}

/// A reply: the result on success, `{code, message, fields}` on failure, under `data`.
public struct ReplyEnvelope<Payload: Codable & Sendable>: Codable, Sendable {
    public var attributes: ReplyAttributes
    public var result: Result<Payload, OperationError>

    public init(attributes: ReplyAttributes, result: Result<Payload, OperationError>) {
        self.attributes = attributes
        self.result = result
    }

    /// Answers `request` with `result`, the outcome following from it.
    public init(answering request: RequestAttributes?, source: String, result: Result<Payload, OperationError>) {
        let outcome: Outcome
        switch result {
        case .success: outcome = .ok
        case .failure(let error): outcome = .error(error.code)
        }
        self.init(
            attributes: ReplyAttributes(correlationID: request?.id, requestType: request?.type, source: source, outcome: outcome),
            result: result
        )
    }

    private enum DataKey: String, CodingKey { case data }

    public init(from decoder: any Decoder) throws {
        attributes = try ReplyAttributes(from: decoder)
        let container = try decoder.container(keyedBy: DataKey.self)
        switch attributes.outcome {
        case .ok: result = .success(try container.decode(Payload.self, forKey: .data))
        case .error: result = .failure(try container.decode(OperationError.self, forKey: .data))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try attributes.encode(to: encoder)
        var container = encoder.container(keyedBy: DataKey.self)
        switch result {
        case .success(let payload): try container.encode(payload, forKey: .data)
        case .failure(let error): try container.encode(error, forKey: .data)
        }
    }
}
