import Contracts
import Envelope
import Foundation
import GatewayService
import MelonServices
import ServiceCatalog
import ServiceKit
import ServiceSupport
import Testing
import TestSupport

/// The READMEs' tables of operations and settings, and docs/openapi.json, are made from the
/// declarations, and stay so: each must read as the code would write it now. `MELON_WRITE_DOCS=1`
/// rewrites them instead of checking them.
@Suite(.timeLimit(.minutes(2))) struct DocumentationTests {
    static let root = BuildProducts.packageRoot()

    /// Each README and the blocks it holds, by name.
    static var documents: [(path: String, blocks: [String: String])] {
        var documents: [(String, [String: String])] = MelonServices.all.map { definition in
            let folder = definition.name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            return ("Services/\(folder)/README.md", [
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
        let blocks = try #require(Self.documents.first { $0.path == path }).blocks
        let url = Self.root.appendingPathComponent(path)
        var text = try String(contentsOf: url, encoding: .utf8)
        for (name, table) in blocks.sorted(by: { $0.key < $1.key }) {
            let start = "<!-- generated: \(name) -->\n", end = "<!-- end: \(name) -->"
            let table = table + "\n"
            guard let opening = text.range(of: start), let closing = text.range(of: end, range: opening.upperBound..<text.endIndex) else {
                Issue.record("\(path) has no generated \(name) block (\(start.trimmingCharacters(in: .newlines)) ... \(end))")
                continue
            }
            if ProcessInfo.processInfo.environment["MELON_WRITE_DOCS"] == "1" {
                text.replaceSubrange(opening.upperBound..<closing.lowerBound, with: table)
            } else {
                #expect(String(text[opening.upperBound..<closing.lowerBound]) == table, "\(path): the \(name) table differs; MELON_WRITE_DOCS=1 rewrites it")
            }
        }
        if ProcessInfo.processInfo.environment["MELON_WRITE_DOCS"] == "1" { try text.write(to: url, atomically: true, encoding: .utf8) }
    }

    /// docs/openapi.json is what `melon openapi` prints and `/openapi.json` serves with the default
    /// settings, so app developers can generate a client from the repository alone.
    @Test func theCommittedAPIDocumentIsCurrent() throws {
        let url = Self.root.appendingPathComponent("docs/openapi.json")
        let current = openAPIDocument(services: ServiceCatalog.services, configuration: GatewayConfiguration()).prettyPrinted() + "\n"
        if ProcessInfo.processInfo.environment["MELON_WRITE_DOCS"] == "1" { return try current.write(to: url, atomically: true, encoding: .utf8) }
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(committed == current, "docs/openapi.json differs from the declarations: MELON_WRITE_DOCS=1 rewrites it (or `melon openapi > docs/openapi.json`)")
    }
}
