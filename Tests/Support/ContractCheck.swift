import Bus
import Envelope
import Foundation

/// Checks both sides of a contract against an example; each returns what does not match (empty: ok).
public enum ContractCheck {
    /// Provider side: the real handler answers the example request with a reply of the example's
    /// shape: the same outcome, the same error fields, the same JSON structure under `data`.
    public static func provider(_ registry: OperationRegistry, _ example: ContractExample) async throws -> [String] {
        let actual = try JSONValue.parse(await registry.handle(example.request, logger: .init(label: "contract"), bus: nil))
        let expected = try JSONValue.parse(example.reply)
        let request = try JSONValue.parse(example.request)
        var problems: [String] = []
        if actual["outcome"] != expected["outcome"] {
            problems.append("outcome is \(actual["outcome"].map(String.init(describing:)) ?? "none"), the example says \(expected["outcome"].map(String.init(describing:)) ?? "none")")
        }
        if actual["correlationid"] != request["id"] {
            problems.append("correlationid does not echo the request id")
        }
        problems += (actual["data"] ?? .null).shapeDifferences(from: expected["data"] ?? .null, at: "data")
        let fields = { (reply: JSONValue) -> [JSONValue] in
            guard case .array(let items)? = reply["data"]?["fields"] else { return [] }
            return items.compactMap { $0["field"] }
        }
        if fields(actual) != fields(expected) {
            problems.append("error fields are \(fields(actual)), the example names \(fields(expected))")
        }
        return problems
    }

    /// Consumer side: the caller's types read the example request and write it back unchanged, and
    /// read the example reply (result or error) and write it back unchanged.
    public static func consumer<Op: BusOperation>(_ operation: Op.Type, _ example: ContractExample) throws -> [String] {
        let codec = EnvelopeCodec()
        guard example.type == Op.type else { return ["the example is for \(example.type), not \(Op.type)"] }
        var problems: [String] = []
        do {
            let request = try codec.decode(RequestEnvelope<Op.Request>.self, from: example.request)
            if try JSONValue.parse(codec.encode(request))["data"] != JSONValue.parse(example.request)["data"] {
                problems.append("\(Op.Request.self) does not encode to the example's data")
            }
            let reply = try codec.decode(ReplyEnvelope<Op.Response>.self, from: example.reply)
            if try JSONValue.parse(codec.encode(reply))["data"] != JSONValue.parse(example.reply)["data"] {
                problems.append("\(Op.Response.self) does not encode to the example reply's data")
            }
        } catch {
            problems.append("the caller's types cannot read the example: \(error)")
        }
        return problems
    }
}
