import Envelope
import Foundation
import Logging
import Metrics

/// The operations one service serves, keyed by envelope `type`.
///
/// `handle` is the whole life of a request inside a worker: size check, decoding (failures become
/// `invalid` naming the field), the deadline check (an expired request is answered
/// `deadline_exceeded` without running), the handler, and the encoded reply. Contract tests call it
/// directly; the worker runtime calls it for every request off the wire.
public struct OperationRegistry: Sendable {
    /// A handler for operation `Op`.
    public typealias Handler<Op: BusOperation> = @Sendable (Op.Request, RequestContext) async throws -> Op.Response

    private typealias Entry = @Sendable (_ body: [UInt8], _ environment: Environment) async -> [UInt8]

    /// What every handler invocation shares.
    struct Environment: Sendable {
        let logger: Logger
        let bus: BusClient?
    }

    /// The bus name of the service.
    public let service: String
    /// `urn:melon:<service>`, the `source` of replies.
    public let source: String
    public let codec: EnvelopeCodec
    private var entries: [String: Entry] = [:]

    public init(service: String, codec: EnvelopeCodec = EnvelopeCodec()) {
        self.service = service
        self.source = "urn:melon:\(service)"
        self.codec = codec
    }

    /// The registered operation types, sorted.
    public var types: [String] { entries.keys.sorted() }

    /// Registers the handler of `Op`; an operation registered twice is a programming error.
    public mutating func register<Op: BusOperation>(_ operation: Op.Type, handler: @escaping Handler<Op>) {
        precondition(Op.service == service, "\(Op.type) belongs to \(Op.service), not \(service)")
        precondition(entries[Op.type] == nil, "\(Op.type) is registered twice")
        let codec = codec, source = source
        let metrics = OperationMetrics(type: Op.type)
        entries[Op.type] = { body, environment in
            let started = ContinuousClock.now
            let result: Result<Op.Response, OperationError>
            let attributes: RequestAttributes?
            do throws(OperationError) {
                let request = try codec.decode(RequestEnvelope<Op.Request>.self, from: body)
                attributes = request.attributes
                result = await Self.run(handler, request, environment)
            } catch {
                attributes = nil
                result = .failure(error)
            }
            let reply = Self.encode(ReplyEnvelope(answering: attributes ?? Self.peek(body), source: source, result: result), codec)
            metrics.record(result.outcome, since: started)
            return reply
        }
    }

    /// Answers one request body with a reply body. Never throws: every failure is a reply.
    public func handle(_ body: [UInt8], logger: Logger, bus: BusClient?) async -> [UInt8] {
        await handle(body, Environment(logger: logger, bus: bus))
    }

    func handle(_ body: [UInt8], _ environment: Environment) async -> [UInt8] {
        guard body.count <= codec.maxBytes else {
            let error = OperationError(.tooLarge, "the request is \(body.count) bytes; the limit is \(codec.maxBytes)")
            return Self.encode(ReplyEnvelope<Empty>(answering: Self.peek(body), source: source, result: .failure(error)), codec)
        }
        guard let attributes = Self.peek(body) else {
            let error = OperationError(.invalid, "the request is not a JSON object")
            return Self.encode(ReplyEnvelope<Empty>(answering: nil, source: source, result: .failure(error)), codec)
        }
        guard let entry = entries[attributes.type] else {
            let error = OperationError.invalid(field: "type", "the \(service) service has no operation \(attributes.type)")
            return Self.encode(ReplyEnvelope<Empty>(answering: attributes, source: source, result: .failure(error)), codec)
        }
        return await entry(body, environment)
    }

    private static func run<Request, Response>(
        _ handler: @Sendable (Request, RequestContext) async throws -> Response,
        _ request: RequestEnvelope<Request>,
        _ environment: Environment
    ) async -> Result<Response, OperationError> {
        let attributes = request.attributes
        var logger = environment.logger
        logger[metadataKey: "request_id"] = "\(attributes.id)"
        if let trace = attributes.traceParent.flatMap(TraceParent.init) { logger[metadataKey: "trace_id"] = "\(trace.traceID)" }
        if let expiry = attributes.expiryTime, expiry <= Date() {
            return .failure(OperationError(.deadlineExceeded, "the request's deadline passed before a worker could start it"))
        }
        let context = RequestContext(attributes: attributes, logger: logger, bus: environment.bus)
        do {
            return .success(try await handler(request.data, context))
        } catch let error as any OperationErrorConvertible {
            return .failure(error.operationError)
        } catch is CancellationError {
            return .failure(OperationError(.unavailable, "the service stopped before the request finished"))
        } catch {
            logger.error("handler failed", metadata: ["type": "\(attributes.type)", "error": "\(String(reflecting: error))"])
            return .failure(OperationError(.internal, "the \(attributes.type) operation failed unexpectedly"))
        }
    }

    /// Attributes good enough to address a reply when the full decode failed.
    private static func peek(_ body: [UInt8]) -> RequestAttributes? {
        guard let values = JSONPeek.strings(["id", "type", "source"], in: body) else { return nil }
        return RequestAttributes(id: values[0] ?? "", source: values[2] ?? "", type: values[1] ?? "")
    }

    private static func encode<P>(_ reply: ReplyEnvelope<P>, _ codec: EnvelopeCodec) -> [UInt8] {
        do {
            return try codec.encode(reply)
        } catch {
            let failure = ReplyEnvelope<Empty>(
                attributes: ReplyAttributes(
                    correlationID: reply.attributes.correlationID, requestType: nil, source: reply.attributes.source,
                    outcome: .error(error.code)),
                result: .failure(error))
            return (try? codec.encode(failure)) ?? []
        }
    }
}

extension Result where Failure == OperationError {
    var outcome: Outcome {
        switch self {
        case .success: .ok
        case .failure(let error): .error(error.code)
        }
    }
}

/// Requests and durations per operation type and outcome.
struct OperationMetrics: Sendable {
    let duration: Timer
    let outcomes: [String: Counter]

    init(type: String) {
        duration = Timer(label: "melon_bus_request_duration_seconds", dimensions: [("type", type)])
        var outcomes: [String: Counter] = [:]
        for outcome in [Outcome.ok] + ErrorCode.allCases.map(Outcome.error) {
            outcomes[outcome.description] = Counter(
                label: "melon_bus_requests_total", dimensions: [("type", type), ("outcome", outcome.description)])
        }
        self.outcomes = outcomes
    }

    func record(_ outcome: Outcome, since start: ContinuousClock.Instant) {
        duration.recordInterval(since: start)
        outcomes[outcome.description]?.increment()
    }
}
