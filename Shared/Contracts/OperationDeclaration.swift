import Envelope

/// A bus operation declared once, beside its message types: its service and `type` (from
/// `BusOperation`), how clients reach it over HTTP, and whether a repeat acts again. The gateway's
/// routes, `/openapi.json`, the contract catalog and the worker runtime's idempotency all read this.
///
/// ```swift
/// public enum Save: OperationDeclaration {
///     public static let service = RefundCalculator.name
///     public static let type = "refund-calculator.scenario.save.v1"
///     public static let http = [HTTPBinding(.post, "/v1/refunds/scenarios", access: .owner, status: .created, errors: [.conflict],
///                                           summary: "Saves the answers under a name for the caller")]
///     public static let idempotency = Idempotency.stored()
///     public struct Request: Codable, Sendable, FieldRules { ... }
///     public typealias Response = SavedScenario
/// }
/// ```
public protocol OperationDeclaration: BusOperation {
    /// The HTTP routes to the operation; none: only services call it.
    static var http: [HTTPBinding] { get }
    /// What a repeated request does. Every operation that changes something declares it.
    static var idempotency: Idempotency? { get }
}

extension OperationDeclaration {
    public static var http: [HTTPBinding] { [] }
    public static var idempotency: Idempotency? { nil }

    /// The schema of `Request`, with the rules of its fields.
    public static var requestSchema: Schema { SchemaReflection.schema(of: Request.self) }
    /// The schema of `Response`.
    public static var responseSchema: Schema { SchemaReflection.schema(of: Response.self) }
}
