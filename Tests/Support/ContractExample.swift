import Bus
import Envelope
import Foundation

/// One example exchange of a bus operation, kept under Tests/ContractTests/Examples/<type>/ as
/// `<case>.request.json` and `<case>.reply.json`.
public struct ContractExample: Sendable, CustomStringConvertible {
    public init(type: String, name: String, request: [UInt8], reply: [UInt8]) {
        self.type = type
        self.name = name
        self.request = request
        self.reply = reply
    }

    public let type: String
    public let name: String
    public let request: [UInt8]
    public let reply: [UInt8]

    public var description: String { "\(type)/\(name)" }

    /// Every example below `directory`, by type folder.
    public static func all(in directory: URL) throws -> [ContractExample] {
        let manager = FileManager.default
        var examples: [ContractExample] = []
        for type in try manager.contentsOfDirectory(atPath: directory.path).sorted() {
            let folder = directory.appendingPathComponent(type)
            for file in try manager.contentsOfDirectory(atPath: folder.path).sorted() where file.hasSuffix(".request.json") {
                let name = String(file.dropLast(".request.json".count))
                let request = try Data(contentsOf: folder.appendingPathComponent(file))
                let reply = try Data(contentsOf: folder.appendingPathComponent("\(name).reply.json"))
                examples.append(ContractExample(type: type, name: name, request: Array(request), reply: Array(reply)))
            }
        }
        return examples
    }
}

extension JSONValue {
    /// Where this value's structure (kinds and keys, not values) differs from `expected`'s.
    func shapeDifferences(from expected: JSONValue, at path: String) -> [String] {
        switch (self, expected) {
        case (.object(let mine), .object(let theirs)):
            return Set(mine.keys).union(theirs.keys).sorted().flatMap { key -> [String] in
                switch (mine[key], theirs[key]) {
                case (nil, _): ["\(path).\(key) is missing"]
                case (_, nil): ["\(path).\(key) is not in the example"]
                case (let a?, let b?): a.shapeDifferences(from: b, at: "\(path).\(key)")
                }
            }
        case (.array(let mine), .array(let theirs)):
            guard let first = mine.first, let model = theirs.first else { return [] }
            return first.shapeDifferences(from: model, at: "\(path)[0]")
        default:
            return kindName == expected.kindName ? [] : ["\(path) is \(kindName), the example has \(expected.kindName)"]
        }
    }
}
