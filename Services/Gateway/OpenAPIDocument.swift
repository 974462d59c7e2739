import Contracts
import Envelope
import Foundation
import HTTPTypes

/// The OpenAPI 3.1 description of the API, built from the same route table the gateway serves, so a
/// route cannot exist without its documentation or the other way round.
enum OpenAPIDocument {
    /// The paths served besides the routes (all GET only): the probes only when they are on the API's
    /// port. The document lists `/openapi.json` alone: the probes are for operators (the gateway's
    /// README), not a client's methods, and they move to the health port in the containers.
    static func platformPaths(probes: Bool) -> [String] { (probes ? ["/healthz", "/readyz", "/metrics"] : []) + ["/openapi.json"] }

    static func make(services: [any ServiceContract.Type], routes: [BusRoute], version: String, deadlines: ClosedRange<Duration>) -> JSONValue {
        var paths: [String: [String: JSONValue]] = [:]
        var schemas: [String: JSONValue] = ["Problem": problemSchema, "ProblemField": problemFieldSchema]
        for route in routes {
            paths[route.path, default: [:]][route.method.rawValue.lowercased()] = operation(route, deadlines: deadlines, schemas: &schemas)
        }
        for stream in services.flatMap({ $0.liveStreams }) {
            paths["/v1/live/\(stream.name)"] = ["get": liveOperation(stream, schemas: &schemas)]
        }
        paths["/openapi.json"] = ["get": [
            "operationId": "platformOpenAPI", "summary": "This document", "tags": ["platform"],
            "responses": ["200": ["description": "OpenAPI 3.1", "content": ["application/json": ["schema": ["type": "object"]]]]],
        ]]
        let routed = Set(routes.map(\.service))
        let tags: [JSONValue] = services.filter { routed.contains($0.name) }.map { service in
            ["name": .string(service.name), "description": .string(service.summary)]
        } + [["name": "platform", "description": "this document."]]
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "Melon API",
                "version": .string(version),
                "description": .string(description),
            ],
            "tags": .array(tags),
            "paths": .object(paths.mapValues { .object($0) }),
            "components": [
                "schemas": .object(schemas),
                "responses": .object(Dictionary(uniqueKeysWithValues: ErrorCode.allCases.map { code in
                    (responseName(code), problemResponse("\(code.rawValue): \(Problem.status(for: code).reasonPhrase)"))
                }).merging(["UnsupportedMediaType": problemResponse("the body is not application/json")]) { a, _ in a }),
                "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer", "bearerFormat": "JWT"]],
            ],
        ]
    }

    private static let description = """
        Every response says `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`. \
        Errors are application/problem+json (RFC 9457) with `code` (the bus error code), `requestId` and, for \
        invalid input, `fields` naming each field. Every response carries `X-Request-Id` and `traceparent`; \
        clients may send their own (W3C Trace Context). `X-Request-Timeout-Ms` shortens the default deadline. \
        Mutating requests accept an `Idempotency-Key`: repeating a request with the same key returns the first \
        result. Sign-in, codes and refresh are rate-limited per account and per client IP with a growing, \
        temporary back-off: 429 with `Retry-After`. Dates are RFC 3339 with milliseconds \
        (`2026-11-21T14:00:00.000Z`; a swift-openapi-generator client decodes them with \
        `.iso8601WithFractionalSeconds`).
        """

    private static func operation(_ route: BusRoute, deadlines: ClosedRange<Duration>, schemas: inout [String: JSONValue]) -> JSONValue {
        var responses: [String: JSONValue] = [
            "\(route.successStatus.code)": [
                "description": .string(route.summary),
                "headers": route.file?.etag == nil ? commonResponseHeaders : entityTagged(commonResponseHeaders),
                "content": route.file.map { file -> JSONValue in [file.mediaType: ["schema": ["type": "string", "format": "binary"]]] }
                    ?? ["application/json": ["schema": route.response.json(hoisting: &schemas)]],
            ],
        ]
        for code in route.possibleErrors {
            responses["\(Problem.status(for: code).code)"] = ["$ref": .string("#/components/responses/\(responseName(code))")]
        }
        if route.body != nil || route.upload != nil { responses["415"] = ["$ref": "#/components/responses/UnsupportedMediaType"] }
        var parameters: [JSONValue] = route.parameters.map { parameter in
            var schema = parameter.schema
            let description = schema.description
            schema.description = nil
            return [
                "name": .string(parameter.name), "in": .string(parameter.location.rawValue),
                "required": .bool(parameter.required), "description": .string(description ?? parameter.name),
                "schema": schema.json,
            ]
        }
        parameters.append(contentsOf: commonRequestHeaders(mutating: route.isMutating, keyRequired: route.requiresIdempotencyKey, deadlines: deadlines))
        for (header, member) in (route.upload?.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            parameters.append([
                "name": .string(header), "in": "header", "required": false, "description": .string("Handed to the operation as \(member)."),
                "schema": ["type": "string"],
            ])
        }
        if route.file?.etag != nil {
            parameters.append(["name": "If-None-Match", "in": "header", "required": false,
                               "description": "The ETag of the file you have: 304 without a body while it is still the file this route gives (a longer value is ignored).",
                               "schema": ["type": "string", "maxLength": .number(Double(HTTPBinding.FileReply.ifNoneMatchBytes))]])
            responses["304"] = ["description": "Not modified: the file you have (If-None-Match) is still the one this route gives.", "headers": entityTagged(commonResponseHeaders)]
        }
        if let file = route.file {
            parameters.append(["name": "Range", "in": "header", "required": false,
                               "description": "One byte range of the file (`bytes=0-1023`, `bytes=-512`): 206 with it; several ranges get the whole file.",
                               "schema": ["type": "string", "maxLength": 100]])
            if file.etag != nil {
                parameters.append(["name": "If-Range", "in": "header", "required": false,
                                   "description": "The ETag you have: the range only while it is still this file, else the whole file.",
                                   "schema": ["type": "string", "maxLength": .number(Double(HTTPBinding.FileReply.ifNoneMatchBytes))]])
            }
            responses["206"] = [
                "description": "The byte range asked for (Content-Range says which).",
                "headers": file.etag == nil ? commonResponseHeaders : entityTagged(commonResponseHeaders),
                "content": .object([file.mediaType: ["schema": ["type": "string", "format": "binary"]]]),
            ]
            responses["416"] = ["description": "The range asked for starts past the file's end (Content-Range: bytes */size).", "headers": commonResponseHeaders]
        }
        var operation: [String: JSONValue] = [
            "operationId": .string(route.operationID),
            "summary": .string(route.summary),
            "description": .string("`\(route.type)`. Who may call: \(route.access.caller)"
                + (route.access.needsToken ? ", in a session of \(route.apps.phrase)" : "")
                + (route.isMutating ? ". A repeat with the same Idempotency-Key: \(route.repeatEffect)." : ".")),
            "tags": [.string(route.service)],
            "parameters": .array(parameters),
            "responses": .object(responses),
        ]
        if let upload = route.upload {
            let file: JSONValue = ["schema": ["type": "string", "format": "binary", "maxLength": .number(Double(upload.maxBytes))]]
            operation["requestBody"] = [
                "required": true, "description": .string("The file itself, at most \(upload.maxBytes) bytes, its Content-Type one of these."),
                "content": .object(Dictionary(uniqueKeysWithValues: upload.mediaTypes.map { ($0, file) })),
            ]
        }
        if let body = route.body {
            var content: [String: JSONValue] = ["schema": body.json(hoisting: &schemas)]
            if let example = route.example { content["example"] = example }
            operation["requestBody"] = ["required": true, "content": ["application/json": .object(content)]]
        }
        if route.access.needsToken {
            operation["security"] = [["bearer": []]]
            // The apps whose sessions may call (the token's client_id), as data for tools.
            operation["x-melon-apps"] = .array(route.apps.listed.map { .string($0.rawValue) })
        }
        return .object(operation)
    }

    /// A live stream's WebSocket: its events' `data` schemas are in `x-live-events`.
    private static func liveOperation(_ stream: LiveStream, schemas: inout [String: JSONValue]) -> JSONValue {
        let events: [JSONValue] = stream.events.map { event in
            ["type": .string(event.type), "summary": .string(event.summary), "data": SchemaReflection.schema(of: event.data).json(hoisting: &schemas)]
        }
        let frames = stream.events.map { "`\($0.type)`: \($0.summary)" }.joined(separator: "; ")
        return [
            "operationId": .string("live" + stream.name.prefix(1).uppercased() + stream.name.dropFirst()),
            "summary": .string("A WebSocket of \(stream.summary.prefix(1).lowercased() + stream.summary.dropFirst())"),
            "description": .string("""
                Upgrade to a WebSocket (HTTP/1.1 `Connection: Upgrade`, `Upgrade: websocket`) with a bearer token in a session of \
                \(stream.apps.phrase). A browser, whose WebSocket sends no Authorization header, offers the subprotocols \
                `\(LiveSockets.subprotocol)` and `\(LiveSockets.tokenPrefix)<access token>` \
                (`new WebSocket(url, ["\(LiveSockets.subprotocol)", "\(LiveSockets.tokenPrefix)" + token])`) and gets `\(LiveSockets.subprotocol)` back. \
                A socket that may not open is closed at once, its close code 4000 plus the status's last digits and the problem's detail its \
                reason: 4000 a bad `after`, 4001 no token or an expired one, 4003 a session of another app, 1013 too many sockets \
                (10 per account); the same request without the upgrade is answered with that problem. Every frame is a JSON text: \
                first the items after `after` (or none without it), then `{"type":"ready","cursor":N}`, then each item as it happens, \
                `{"cursor":N,"type":...,"data":{...}}`, in cursor order. Reconnect with the last cursor received as `after` to get what \
                was missed; `{"type":"reset","cursor":N}` says it is no longer kept: reload through the routes, then resume from N. \
                Code 4001 closes a socket whose session ended or token expired. Events: \(frames). Published by \(stream.service).
                """),
            "tags": [.string(stream.service)],
            "parameters": [[
                "name": "after", "in": "query", "required": false, "description": "the last cursor received",
                "schema": ["type": "integer", "format": "int64", "minimum": 0],
            ]],
            "responses": [
                "101": ["description": "Switching Protocols: the WebSocket"],
                "400": ["$ref": .string("#/components/responses/\(responseName(.invalid))")],
                "401": ["$ref": .string("#/components/responses/\(responseName(.unauthenticated))")],
                "403": ["$ref": .string("#/components/responses/\(responseName(.forbidden))")],
                "429": ["$ref": .string("#/components/responses/\(responseName(.rateLimited))")],
            ],
            "security": [["bearer": []]],
            "x-melon-apps": .array(stream.apps.listed.map { .string($0.rawValue) }),
            "x-live-events": .array(events),
        ]
    }

    private static func commonRequestHeaders(mutating: Bool, keyRequired: Bool, deadlines: ClosedRange<Duration>) -> [JSONValue] {
        var headers: [JSONValue] = [
            ["name": "X-Request-Timeout-Ms", "in": "header", "required": false,
             "description": "A shorter deadline for this request, in milliseconds.",
             "schema": ["type": "integer", "minimum": .number(Double(deadlines.lowerBound.milliseconds)), "maximum": .number(Double(deadlines.upperBound.milliseconds))]],
        ]
        if mutating {
            headers.append(["name": "Idempotency-Key", "in": "header", "required": .bool(keyRequired),
                            "description": keyRequired
                                ? "Required: repeat the request with the same key to learn how the first one ended instead of acting twice."
                                : "Repeat a request with the same key to get the first result instead of acting twice.",
                            "schema": ["type": "string", "minLength": .number(Double(IdempotencyKey.length.lowerBound)), "maxLength": .number(Double(IdempotencyKey.length.upperBound)), "pattern": "^[!-~]+$"]])
        }
        return headers
    }

    /// `headers` with the ETag of a file.
    private static func entityTagged(_ headers: JSONValue) -> JSONValue {
        guard case .object(var members) = headers else { return headers }
        members["ETag"] = ["description": "The file's entity tag, for If-None-Match.", "schema": ["type": "string"]]
        return .object(members)
    }

    private static let commonResponseHeaders: JSONValue = [
        "X-Request-Id": ["description": "Identifies the request in logs.", "schema": ["type": "string"]],
        "traceparent": ["description": "W3C Trace Context of this request.", "schema": ["type": "string"]],
    ]

    private static let problemSchema: JSONValue = [
        "type": "object",
        "required": ["type", "title", "status", "detail", "code", "requestId"],
        "properties": [
            "type": ["type": "string", "format": "uri"],
            "title": ["type": "string"],
            "status": ["type": "integer"],
            "detail": ["type": "string"],
            "code": ["type": "string"],
            "requestId": ["type": "string"],
            "retryAfter": ["type": "integer", "description": "for 429: seconds until a retry may succeed (also the Retry-After header)"],
            "current": ["description": "for 409 over a version: the thing as it is now, as its GET answers"],
            "fields": ["type": "array", "items": ["$ref": "#/components/schemas/ProblemField"]],
        ],
    ]

    /// One field of a refused request, named as the client sent it (`spouse.taxPaidCents`).
    private static let problemFieldSchema: JSONValue = [
        "type": "object", "required": ["field", "message"],
        "properties": ["field": ["type": "string"], "message": ["type": "string"]],
    ]

    private static func problemResponse(_ description: String) -> JSONValue {
        ["description": .string(description), "headers": commonResponseHeaders,
         "content": [Problem.mediaType: ["schema": ["$ref": "#/components/schemas/Problem"]]]]
    }

    /// `not_found` → `NotFound`.
    static func responseName(_ code: ErrorCode) -> String {
        code.rawValue.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
