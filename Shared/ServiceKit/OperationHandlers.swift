import Bus
import Contracts
import Crypto
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// The handlers of one service's operations, registered against their declarations. The kit runs
/// what the declarations promise: every request is checked against its operation's schema before
/// its handler runs (the same check the gateway makes, so a request from another service meets the
/// same bounds as a client's, and a handler never types a bound again); an operation that keeps its
/// reply (`Idempotency.stored`) runs its change and the record of its reply in one transaction, and a
/// repeat gets the stored reply; an erase operation also forgets the erased account's records.
public struct OperationHandlers: Sendable {
    public private(set) var registry: OperationRegistry
    let contract: any ServiceContract.Type
    let database: Database?

    public init(_ contract: any ServiceContract.Type, database: Database?) {
        self.contract = contract
        self.database = database
        registry = OperationRegistry(service: contract.name)
    }

    /// Registers the handler of an operation that keeps no reply (a read, or one whose repeat is harmless).
    public mutating func on<Op: OperationDeclaration>(_ operation: Op.Type, _ handler: @escaping OperationRegistry.Handler<Op>) {
        if case .stored? = Op.idempotency {
            preconditionFailure("\(Op.type) keeps its reply: register it with once(_:prepare:apply:)")
        }
        guard Op.self is any AccountEraseOperation.Type, let database else {
            return registry.register(operation) { request, context in
                try Op.check(request)
                return try await handler(request, context)
            }
        }
        registry.register(operation) { request, context in
            try Op.check(request)
            let response = try await handler(request, context)
            if let erased = request as? AccountErasure {
                _ = try await database.transaction { connection in
                    try await database.forgetIdempotency(caller: erased.account, on: connection)
                    try await database.forgetRateLimits(.account(erased.account), on: connection)
                    try await database.forgetBackoffs(.account(erased.account), on: connection)
                    if let account = UUID(uuidString: erased.account) {
                        try await database.forgetMedia(of: account, on: connection)
                        try await database.forgetLive(account, on: connection)
                    }
                }
            }
            return response
        }
    }

    /// Registers an operation that keeps its reply. `prepare` checks the request and does what needs
    /// no transaction (validation, hashing, limits); `apply` makes the change in the transaction that
    /// also records the reply. A repeat (same key, same caller, same request without its secret
    /// fields) gets the stored reply without either running; the same key with another request is
    /// `conflict`.
    public mutating func once<Op: OperationDeclaration, Prepared: Sendable>(
        _ operation: Op.Type,
        prepare: @escaping @Sendable (Op.Request, RequestContext) async throws -> Prepared,
        apply: @escaping @Sendable (Prepared, RequestContext, PostgresConnection) async throws -> Op.Response
    ) {
        guard case .stored(let scope)? = Op.idempotency else { preconditionFailure("\(Op.type) does not declare a stored reply") }
        guard let database else { preconditionFailure("\(Op.type) keeps its reply, so \(contract.name) needs a database") }
        let codec = EnvelopeCodec()
        registry.register(operation) { request, context in
            try Op.check(request)
            let key = context.attributes.idempotencyKey ?? context.attributes.id
            let record = IdempotencyRecord(
                operation: Op.type, caller: scope == .caller ? context.attributes.authID ?? "" : "",
                key: try IdempotencyKey.checked(key, field: "idempotencykey"))
            let fingerprint = try Self.fingerprint(request, schema: Op.requestSchema, codec: codec)
            if let stored = try await database.storedReply(record, fingerprint: fingerprint) {
                return try codec.decode(Op.Response.self, from: stored)
            }
            let prepared = try await prepare(request, context)
            let reply = try await database.transaction { connection in
                try await database.once(record, fingerprint: fingerprint, on: connection) {
                    try codec.encode(try await apply(prepared, context, connection))
                }
            }
            return try codec.decode(Op.Response.self, from: reply)
        }
    }

    /// The operations registered, checked against the contract: each one has a handler, and no
    /// handler serves an operation the contract does not list.
    public func finished() -> OperationRegistry {
        let declared = Set(contract.operations.map { $0.type })
        let served = Set(registry.types)
        precondition(declared == served, "\(contract.name) serves \(served.sorted()) but declares \(declared.sorted())")
        return registry
    }

    /// SHA-256 of the request's canonical JSON without its secret fields: what tells a repeat from
    /// another request, and nothing a secret can be guessed from.
    static func fingerprint<Request: Encodable>(_ request: Request, schema: Schema, codec: EnvelopeCodec) throws -> [UInt8] {
        var bytes = try codec.canonical(request)
        if schema.hasSecrets {
            bytes = try JSONValue.parse(bytes).withoutSecrets(of: schema).encoded()
        }
        return Array(SHA256.hash(data: bytes))
    }
}

extension Schema {
    /// Whether any member, at any depth, is a secret.
    var hasSecrets: Bool {
        properties.contains { $0.schema.isSecret || $0.schema.hasSecrets } || (element?.hasSecrets ?? false)
    }
}

extension JSONValue {
    /// This value with the members `schema` marks secret left out.
    func withoutSecrets(of schema: Schema) -> JSONValue {
        switch self {
        case .object(var members):
            for property in schema.properties {
                if property.schema.isSecret {
                    members[property.name] = nil
                } else if let member = members[property.name] {
                    members[property.name] = member.withoutSecrets(of: property.schema)
                }
            }
            return .object(members)
        case .array(let items):
            guard let element = schema.element else { return self }
            return .array(items.map { $0.withoutSecrets(of: element) })
        default:
            return self
        }
    }
}
