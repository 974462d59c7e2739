import Contracts
import Envelope
import Foundation
import GatewayService
import MelonServices
import ServiceKit
import ServiceSupport
import Testing
import TestSupport

/// The READMEs' tables of operations and settings, and docs/openapi.json, are made from the
/// declarations, and stay so: each must read as the code would write it now. `MELON_WRITE_DOCS=1`
/// rewrites them instead of checking them.
@Suite(.timeLimit(.minutes(2))) struct DocumentationTests {
    /// Each README and the blocks it holds, by name.
    static var documents: [(path: String, blocks: [String: String])] {
        var documents: [(String, [String: String])] = MelonServices.all.map { definition in
            ("Services/\(definition.folder)/README.md", [
                "operations": operationsTable(definition.contract),
                "settings": Setting.markdownTable(definition.processSettings + [.healthPort, .healthHost, .logLevel, .logFormat]),
            ])
        }
        documents.append(("Services/Gateway/README.md", ["settings": Setting.markdownTable(Setting.gatewaySettings + [.logLevel, .logFormat])]))
        documents.append(("Services/Broker/README.md", ["settings": Setting.markdownTable(Setting.brokerSettings + [.logLevel, .logFormat])]))
        return documents
    }

    /// Operation, route, who may call it, and what a repeat does.
    static func operationsTable(_ contract: any ServiceContract.Type) -> String {
        var lines = ["| operation | route | who | a repeat |", "|---|---|---|---|"]
        for operation in contract.operations {
            let routes = operation.http.map { "`\($0.method.rawValue) \($0.path)`" }.joined(separator: ", ")
            let who = operation.http.first?.access.caller ?? "services"
            lines.append("| `\(operation.type)` | \(routes.isEmpty ? "(bus only)" : routes) | \(who) | \(Idempotency.repeatEffect(operation.idempotency)) |")
        }
        return lines.joined(separator: "\n")
    }

    @Test(arguments: documents.map(\.path))
    func theGeneratedTablesAreCurrent(_ path: String) throws {
        try GeneratedFiles.check(path, blocks: try #require(Self.documents.first { $0.path == path }).blocks, markers: .markdown)
    }

    /// docs/openapi.json is what `melon openapi` prints and `/openapi.json` serves with the default
    /// settings, so app developers can generate a client from the repository alone.
    /// Made from the list (in the catalog's order) rather than the compiled catalog, so one
    /// MELON_WRITE_DOCS=1 run writes it with the catalog for a new service.
    @Test func theCommittedAPIDocumentIsCurrent() throws {
        let services = MelonServices.all.sorted { $0.name < $1.name }.map(\.contract)
        let configuration = try ProcessSettings.declared(Setting.gatewaySettings, process: "gateway").gatewayConfiguration()
        try GeneratedFiles.check("docs/openapi.json", whole: openAPIDocument(services: services, configuration: configuration).prettyPrinted() + "\n")
    }
}
