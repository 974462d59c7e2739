import Contracts
import Envelope
import ServiceCatalog
import Testing

/// What every declaration in the catalog must say.
@Suite(.timeLimit(.minutes(2))) struct CatalogTests {
    static let operations = ServiceCatalog.operations.map { OperationCase(operation: $0) }

    struct OperationCase: CustomStringConvertible, Sendable {
        let operation: any OperationDeclaration.Type
        var description: String { operation.type }
    }

    @Test(arguments: operations)
    func everyOperationChangingSomethingSaysWhatARepeatDoes(_ item: OperationCase) {
        let operation = item.operation
        if operation.http.contains(where: \.isMutating) || operation.http.isEmpty && operation.type.contains(".erase.") {
            #expect(operation.idempotency != nil, "\(operation.type) changes something but does not declare its idempotency")
        }
        if case .repeatable(let reason)? = operation.idempotency { #expect(!reason.isEmpty) }
    }

    @Test(arguments: operations)
    func everyDeclarationReflectsAndNamesItsService(_ item: OperationCase) {
        let operation = item.operation
        // Reflecting checks that every field rule names a field of its type.
        #expect(operation.requestSchema.kind == .object)
        #expect(operation.responseSchema.kind == .object)
        #expect(operation.type.hasPrefix(operation.service + "."), "the type starts with the service name")
        #expect(operation.type.wholeMatch(of: /[a-z-]+\.[a-z-]+\.[a-z-]+\.v[0-9]+/) != nil, "\(operation.type): exactly three segments before the version, <service>.<resource>.<verb>.v<N> (docs/ARCHITECTURE.md, An operation)")
        for binding in operation.http {
            for name in binding.pathParameters {
                #expect(operation.requestSchema[property: name] != nil, "{\(name)} in \(binding.path) is a request member")
            }
        }
    }

    @Test func eachMethodAndPathHasOneOperationAndEachServiceOneName() {
        let routes = ServiceCatalog.operations.flatMap { operation in operation.http.map { "\($0.method.rawValue) \($0.path)" } }
        #expect(Set(routes).count == routes.count, "\(routes)")
        let names = ServiceCatalog.services.map { $0.name }
        #expect(Set(names).count == names.count)
        for service in ServiceCatalog.services {
            for operation in service.operations { #expect(operation.service == service.name, "\(operation.type) is listed under \(service.name)") }
        }
    }

    /// Route names are the methods of generated clients: lowerCamelCase and unique.
    @Test func everyRouteHasItsOwnMethodName() {
        let names = ServiceCatalog.operations.flatMap { $0.http.map(\.name) }
        #expect(Set(names).count == names.count, "\(names)")
        #expect(names.allSatisfy { $0.wholeMatch(of: /[a-z][A-Za-z0-9]*/) != nil }, "\(names)")
    }

    /// Nothing a caller sends is unbounded: every text has a length (or a set of values), every list
    /// and dictionary a count, every dictionary's names a length, every free-form value a depth and
    /// a size. A member without one was how a W-2's 400,000-character locality got stored and echoed.
    @Test(arguments: operations)
    func everyRequestMemberHasABound(_ item: OperationCase) {
        var unbounded: [String] = []
        func walk(_ schema: Schema, _ path: String) {
            if schema.isAny {
                if schema.anyBounds == nil { unbounded.append("\(path) (free-form, no depth and size)") }
                return
            }
            switch schema.kind {
            case .string where schema.length == nil && schema.allowed == nil && !Self.boundsTheLength(schema.pattern):
                unbounded.append("\(path) (text without a length)")
            case .array:
                if schema.count == nil { unbounded.append("\(path) (a list without a count)") }
                if let element = schema.element { walk(element, path + "[]") }
            case .object where schema.isDictionary:
                if schema.count == nil || schema.keyLength == nil { unbounded.append("\(path) (a dictionary without a count and a name length)") }
                if let element = schema.element { walk(element, path + ".*") }
            case .object:
                for property in schema.properties { walk(property.schema, path + "." + property.name) }
            default:
                break
            }
        }
        walk(item.operation.requestSchema, "data")
        #expect(unbounded.isEmpty, "\(item.operation.type): \(unbounded.joined(separator: ", "))")
    }

    /// Whether `pattern` matches texts of a bounded length only: anchored at both ends, with no `*`,
    /// `+` or `{n,}` outside escapes and character classes.
    static func boundsTheLength(_ pattern: String?) -> Bool {
        guard let pattern, pattern.hasPrefix("^"), pattern.hasSuffix("$") else { return false }
        let quantifiers = pattern.replacing(/\\./, with: "").replacing(/\[[^\]]*\]/, with: "x")
        return quantifiers.firstMatch(of: /[*+]|\{[0-9]+,\}/) == nil
    }

    /// An example body in the document is one the gateway would accept.
    @Test(arguments: operations)
    func everyExampleBodyMeetsItsSchema(_ item: OperationCase) throws {
        for binding in item.operation.http {
            guard let example = binding.example else { continue }
            let value = try JSONValue.parse(Array(example.utf8))
            let body = item.operation.requestSchema.keeping { !binding.pathParameters.contains($0) }
            #expect(body.problems(value, at: "data").isEmpty, "\(binding.name): \(body.problems(value, at: "data"))")
        }
    }

    @Test func everyServiceThatKeepsPersonalDataIsErasedWithTheAccount() {
        #expect(ServiceCatalog.erasures.map { $0.type }.sorted() == [
            "household.account.erase.v1", "marketplace-chat.account.erase.v1", "notifications.account.erase.v1", "payments.account.erase.v1",
            "pdf-email.account.erase.v1",
            "refund-calculator.account.erase.v1",
            "tax-form.account.erase.v1",
        ])
    }
}
