import Envelope
import Foundation
import GatewayService
import MelonServices
import ServiceSupport
import Testing

/// Every list of the API pages one way (docs/ARCHITECTURE.md, "Lists"): a GET whose reply says
/// where the next page starts names it `nextAfter`, and takes it back as the query parameter
/// `after`, with `limit`; no list pages by `before`, `offset`, `page` or `cursor`, whatever its
/// order (issue 59: chore comments paged by before/nextBefore, post comments by after/nextAfter).
@Suite(.timeLimit(.minutes(2))) struct PagingConventionTests {
    @Test func everyPagedListTakesAfterAndLimitAndAnswersNextAfter() throws {
        let services = MelonServices.all.map(\.contract)
        let configuration = try ProcessSettings.declared(Setting.gatewaySettings, process: "gateway").gatewayConfiguration()
        let document = openAPIDocument(services: services, configuration: configuration)
        guard case .object(let paths)? = document["paths"], case .object(let schemas)? = document["components"]?["schemas"] else {
            Issue.record("the document has no paths or schemas")
            return
        }
        func resolved(_ schema: JSONValue?) -> JSONValue? {
            guard case .string(let reference)? = schema?["$ref"] else { return schema }
            return resolved(schemas[String(reference.split(separator: "/").last ?? "")])
        }
        var lists = 0
        for (path, methods) in paths.sorted(by: { $0.key < $1.key }) {
            guard let operation = methods["get"], case .string(let name)? = operation["operationId"] else { continue }
            guard case .array(let parameters)? = operation["parameters"] else { continue }
            let query = Set(parameters.compactMap { parameter -> String? in
                guard parameter["in"] == "query", case .string(let name)? = parameter["name"] else { return nil }
                return name
            })
            let reply = resolved(operation["responses"]?["200"]?["content"]?["application/json"]?["schema"])
            guard case .object(let members)? = reply?["properties"] else { continue }
            let next = members.keys.filter { $0.hasPrefix("next") && $0 != "nextAction" }
            #expect(query.isDisjoint(with: ["before", "offset", "page", "cursor"]), "\(name) (\(path)) pages by \(query.sorted())")
            guard !next.isEmpty else { continue }
            lists += 1
            #expect(next == ["nextAfter"] && query.isSuperset(of: ["after", "limit"]), "\(name) (\(path)): \(next.sorted()) and \(query.sorted())")
        }
        #expect(lists >= 30, "\(lists) paged lists")
    }
}
