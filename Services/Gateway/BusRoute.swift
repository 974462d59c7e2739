import Contracts
import Envelope
import HTTPTypes

/// One HTTP endpoint and the bus operation behind it, made from the operation's declaration: its
/// binding, and its request schema split into path parameters, query parameters and body.
struct BusRoute: Sendable {
    /// A path or query parameter: a member of the request, copied into the operation's `data` under
    /// its own name, with its kind and limits from the request's schema.
    struct Parameter: Sendable {
        enum Location: String, Sendable { case path, query }

        var name: String
        var location: Location
        var schema: Schema
        var required: Bool

        /// `text` as the JSON value of this parameter, or `invalid` naming it; its limits are checked
        /// with the rest of the request.
        func json(_ text: String) throws(OperationError) -> [UInt8] {
            switch schema.kind {
            case .integer:
                guard let value = Int64(text) else { throw OperationError.invalid(field: name, "must be a whole number") }
                return Array("\(value)".utf8)
            case .boolean:
                guard text == "true" || text == "false" else { throw OperationError.invalid(field: name, "must be true or false") }
                return Array(text.utf8)
            default:
                return JSONObjectBody.stringLiteral(text)
            }
        }
    }

    var method: HTTPRequest.Method
    /// OpenAPI form: `/v1/items/{id}`.
    var path: String
    var service: String
    var type: String
    /// The binding's name: the document's `operationId`, unique, and a generated client's method.
    var operationID: String
    var summary: String
    /// What a repeat does (`Idempotency.repeatEffect`).
    var repeatEffect: String
    /// The reply is stored under the Idempotency-Key: the same key with another request is `conflict`.
    var storesReply: Bool
    var access: HTTPBinding.Access
    /// Whose sessions may call: the binding's, else its service's; every app for a route anyone may call.
    var apps: AppScope
    var parameters: [Parameter]
    /// The whole `data` (parameters and body members), as the gateway checks it before the bus.
    var requestSchema: Schema
    /// The body's schema; nil for routes without one.
    var body: Schema?
    var response: Schema
    var successStatus: HTTPResponse.Status
    /// The error codes this operation answers with besides those every route can give.
    var errors: [ErrorCode]
    /// Set when the route answers with a file (its bytes from a reply member) instead of JSON.
    var file: HTTPBinding.FileReply?
    /// Set when the route takes a file as its body (into two request members) instead of JSON.
    var upload: HTTPBinding.FileUpload?
    /// The binding's example body, for the API document.
    var example: JSONValue?
    /// The client must send an Idempotency-Key.
    var requiresIdempotencyKey: Bool

    /// The services `routes` reach, by name.
    static func services(of routes: [BusRoute]) -> [String] { Array(Set(routes.map(\.service))).sorted() }

    /// Every route of `services`' operations, in their order.
    static func all(_ services: [any ServiceContract.Type]) -> [BusRoute] {
        let routes = services.flatMap { service in
            service.operations.flatMap { operation in operation.http.map { BusRoute(operation, $0, apps: service.apps) } }
        }
        var names: Set<String> = []
        for route in routes {
            precondition(route.operationID.wholeMatch(of: /[a-z][A-Za-z0-9]*/) != nil, "\(route.type): the route name \(route.operationID) is not lowerCamelCase")
            precondition(names.insert(route.operationID).inserted, "\(route.type): another route is already named \(route.operationID)")
        }
        return routes
    }

    init(_ operation: any OperationDeclaration.Type, _ binding: HTTPBinding, apps serviceApps: AppScope) {
        method = HTTPRequest.Method(binding.method.rawValue)!
        path = binding.path
        service = operation.service
        type = operation.type
        operationID = binding.name
        summary = binding.summary
        repeatEffect = Idempotency.repeatEffect(operation.idempotency)
        if case .stored? = operation.idempotency { storesReply = true } else { storesReply = false }
        access = binding.access
        apps = binding.access.needsToken ? binding.apps ?? serviceApps : .everyApp
        successStatus = HTTPResponse.Status(code: binding.status.rawValue)
        errors = binding.errors
        response = operation.responseSchema
        file = binding.file
        upload = binding.upload
        requiresIdempotencyKey = binding.requiresIdempotencyKey
        example = binding.example.flatMap { try? JSONValue.parse(Array($0.utf8)) }
        if let file {
            precondition(response[property: file.content] != nil, "\(operation.type): the file's content \(file.content) is not a reply member")
            for member in [file.mediaTypeMember, file.etag, file.fileName].compactMap(\.self) {
                precondition(response[property: member] != nil, "\(operation.type): the file's \(member) is not a reply member")
            }
        }

        var schema = operation.requestSchema
        for (name, rule) in binding.parameterRules {
            guard let index = schema.properties.firstIndex(where: { $0.name == name }) else {
                preconditionFailure("\(operation.type): \(binding.path) has a rule for \(name), which is not a request member")
            }
            rule.apply(to: &schema.properties[index].schema)
        }
        requestSchema = schema
        let inPath = Set(binding.pathParameters)
        for name in inPath where schema[property: name] == nil {
            preconditionFailure("\(operation.type): \(binding.path) names {\(name)}, which is not a request member")
        }
        var parameters: [Parameter] = []
        for property in schema.properties {
            if inPath.contains(property.name) {
                parameters.append(Parameter(name: property.name, location: .path, schema: property.schema, required: true))
            } else if binding.method == .get {
                precondition([.string, .integer, .boolean].contains(property.schema.kind), "\(operation.type): \(property.name) cannot be a query parameter")
                parameters.append(Parameter(name: property.name, location: .query, schema: property.schema, required: property.isRequired))
            }
        }
        self.parameters = parameters
        let bodyMembers = schema.keeping { name in !parameters.contains { $0.name == name } }
        if let upload = binding.upload {
            precondition(
                Set(bodyMembers.properties.map(\.name)) == Set([upload.content, upload.mediaType] + upload.headers.values),
                "\(operation.type): an upload's request has its path parameters, \(upload.content), \(upload.mediaType) and its headers' members, nothing else")
            body = nil
        } else {
            body = bodyMembers.properties.isEmpty ? nil : bodyMembers
        }
    }

    /// Hummingbird form of `path`: `/v1/items/:id`.
    var routerPath: String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? ":" + segment.dropFirst().dropLast() : segment
        }.joined(separator: "/")
    }

    /// True for methods that change something: they carry an idempotency key.
    var isMutating: Bool { ![.get, .head, .options].contains(method) }

    /// Every error code this route can answer with, in a stable order.
    var possibleErrors: [ErrorCode] {
        var codes: Set<ErrorCode> = [.invalid, .internal, .unavailable, .deadlineExceeded, .notFound]
        if body != nil || upload != nil { codes.insert(.tooLarge) }
        if access.needsToken { codes.insert(.unauthenticated) }
        if apps != .everyApp { codes.insert(.forbidden) }
        if storesReply { codes.insert(.conflict) }
        codes.formUnion(errors)
        return ErrorCode.allCases.filter(codes.contains)
    }
}
