import AuthContract
import Bus
import Contracts
import Envelope
import Foundation
import ServiceCatalog
import Testing
import TestSupport

/// The stranger walk's twin: every signed-in route of the API document, called through the gateway
/// with a session of each app. A session of an app the document lists for the route (`x-melon-apps`)
/// gets past the gateway; any other app's is refused `forbidden` before the bus, whatever the route
/// names. Each service stands in for itself with a registry that answers every operation
/// `not_found`, so a 403 can only be the gateway's.
@Suite(.timeLimit(.minutes(5))) struct AppWalkTests {
    /// A stand-in of `service`: every operation answered `not_found`, never `forbidden` (auth's keys
    /// are the stack's own, which sign its sessions).
    static func standIn(_ service: any ServiceContract.Type) -> OperationRegistry {
        var registry = OperationRegistry(service: service.name)
        for operation in service.operations where operation.type != Auth.Keys.Jwks.type { answerNotFound(operation, &registry) }
        return registry
    }

    private static func answerNotFound<Op: OperationDeclaration>(_ operation: Op.Type, _ registry: inout OperationRegistry) {
        registry.register(operation) { _, _ in throw OperationError(.notFound, "a stand-in of \(Op.service)") }
    }

    /// A path with each `{parameter}` filled by an id.
    static func filled(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") ? "0a1b2c3d-0000-4e5f-8a9b-000000000000" : String(segment)
        }.joined(separator: "/")
    }

    @Test func everySignedInRouteAdmitsTheSessionsOfItsAppsOnly() async throws {
        let services = ServiceCatalog.services
        try await InProcessStack.with(routing: services, to: services.map(Self.standIn)) { http in
            var sessions: [ClientApp: [String: String]] = [:]
            for app in ClientApp.allCases { sessions[app] = try await http.signedIn(UUID(), as: TestCaller(app: app.rawValue)) }
            let document = try #require(try await http.get("/openapi.json").json)
            guard case .object(let paths)? = document["paths"] else { Issue.record("no paths"); return }
            var walked = 0
            for (path, methods) in paths.sorted(by: { $0.key < $1.key }) where path.hasPrefix("/v1/") && !path.hasPrefix("/v1/live/") {
                guard case .object(let operations) = methods else { continue }
                for (method, operation) in operations.sorted(by: { $0.key < $1.key }) where operation["security"] != nil {
                    guard case .array(let listed)? = operation["x-melon-apps"] else {
                        Issue.record("\(method) \(path): the document does not say which apps may call it")
                        continue
                    }
                    let allowed = Set(listed.compactMap { if case .string(let app) = $0 { ClientApp(rawValue: app) } else { nil } })
                    #expect(!allowed.isEmpty && allowed.count == listed.count, "\(method) \(path): \(listed)")
                    for app in ClientApp.allCases {
                        var headers = try #require(sessions[app])
                        headers["Content-Type"] = "application/json"
                        let body: [UInt8]? = method == "get" ? nil : Array("{}".utf8)
                        let reply = try await http.send(method.uppercased(), Self.filled(path), body: body, headers: headers)
                        if allowed.contains(app) {
                            #expect(reply.status != 403, "\(method) \(path), a session of \(app): \(reply.status) \(reply.text)")
                        } else {
                            let detail = reply.json?["detail"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? ""
                            #expect(reply.status == 403 && detail.hasPrefix("this route is for sessions of"),
                                    "\(method) \(path), a session of \(app) (not one of \(allowed.map(\.rawValue).sorted())): \(reply.status) \(reply.text)")
                        }
                    }
                    walked += 1
                }
            }
            #expect(walked > 100, "walked \(walked) routes")
        }
    }
}
