import Envelope
import Foundation
import Synchronization

/// Derives the `Schema` of a `Decodable` type by decoding it from a decoder that records what the
/// type asks for: each member's name and type, and whether it is required (`decode`) or optional
/// (`decodeIfPresent`, which synthesized Codable uses for optionals). Then the type's `FieldRules`
/// add what the type cannot say. Schemas are made once per type and kept.
public enum SchemaReflection {
    private static let cache = Mutex<[ObjectIdentifier: Schema]>([:])

    /// The schema of `type`.
    public static func schema(of type: any Decodable.Type) -> Schema {
        func open<T: Decodable>(_: T.Type) -> Schema { schema(T.self) }
        return open(type)
    }

    static func schema<T: Decodable>(_ type: T.Type) -> Schema {
        if let known = cache.withLock({ $0[ObjectIdentifier(type)] }) { return known }
        let (_, schema) = reflect(type)
        cache.withLock { $0[ObjectIdentifier(type)] = schema }
        return schema
    }

    /// A value of `T` (for the decoding to go on) and its schema.
    static func reflect<T: Decodable>(_ type: T.Type) -> (T, Schema) {
        if let (value, kind, format) = scalar(type) {
            var schema = Schema(kind)
            schema.format = format
            return (value, schema)
        }
        if type == Date.self {
            var schema = Schema(.string)
            schema.format = "date-time"
            // RFC 3339, from `2026-11-21T14:00:00Z` to nanoseconds and an offset.
            schema.length = 20...35
            return (Date(timeIntervalSince1970: 0) as! T, schema)
        }
        if type == Data.self {
            var schema = Schema(.string)
            schema.contentEncoding = "base64"
            return (Data() as! T, schema)
        }
        if let open = type as? any SchemaAnyValue.Type {
            var schema = Schema(.object)
            schema.isAny = true
            schema.anyBounds = open.schemaBounds
            return (open.schemaSample as! T, schema)
        }
        if let enumeration = type as? any SchemaEnumeration.Type {
            var schema = Schema(.string)
            schema.allowed = enumeration.schemaValues
            schema.name = componentName(type)
            return (enumeration.schemaSample as! T, schema)
        }
        if let dictionary = type as? any StringKeyedDictionary.Type {
            var schema = Schema(.object)
            schema.isDictionary = true
            schema.element = Self.schema(of: dictionary.valueType)
            return (dictionary.empty as! T, schema)
        }
        let node = Node()
        do {
            let value = try T(from: Recorder(node: node))
            var schema = node.schema ?? Schema(.object)
            if let rules = type as? any FieldRules.Type {
                for (name, rule) in rules.fieldRules {
                    guard let index = schema.properties.firstIndex(where: { $0.name == name }) else {
                        preconditionFailure("\(type) has a field rule for \(name), which is not one of its fields")
                    }
                    rule.apply(to: &schema.properties[index].schema)
                }
                schema.properties.removeAll { $0.schema.isUndocumented }
            }
            if schema.kind == .object, !schema.isDictionary { schema.name = componentName(type) }
            return (value, schema)
        } catch {
            preconditionFailure("\(type) cannot be reflected into a schema: \(error)")
        }
    }

    /// The API document's name for a message type: its path without the module, run together
    /// (`RefundCalculator.Scenario` → `RefundCalculatorScenario`); nil for generic or local types.
    static func componentName(_ type: Any.Type) -> String? {
        let path = String(reflecting: type)
        guard path.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" }) else { return nil }
        return path.split(separator: ".").dropFirst().joined()
    }

    /// A scalar's sample value, kind and format: Int64 and Int32 say their width, so generated
    /// clients type them exactly (Int is 64 bits on every platform Swift servers and apps run on).
    private static func scalar<T>(_ type: T.Type) -> (T, Schema.Kind, String?)? {
        switch type {
        case is String.Type: ("" as! T, .string, nil)
        case is Bool.Type: (false as! T, .boolean, nil)
        case is Int.Type: (0 as! T, .integer, nil)
        case is Int64.Type: (Int64(0) as! T, .integer, "int64")
        case is Int32.Type: (Int32(0) as! T, .integer, "int32")
        case is UInt.Type: (UInt(0) as! T, .integer, nil)
        case is UInt64.Type: (UInt64(0) as! T, .integer, nil)
        case is Double.Type: (0.0 as! T, .number, "double")
        default: nil
        }
    }

    /// What one value's decoding asked for.
    final class Node {
        var schema: Schema?
        /// Members asked about with `decodeNil` first: the standard library's `decodeIfPresent` for
        /// scalars does that before `decode`, so they are optional.
        var optional: Set<String> = []
    }

    struct Recorder: Decoder {
        let node: Node
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] = [:]

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            if node.schema == nil { node.schema = Schema(.object) }
            return KeyedDecodingContainer(KeyedRecorder<Key>(node: node))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            node.schema = Schema(.array)
            return UnkeyedRecorder(node: node)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            SingleValueRecorder(node: node)
        }
    }

    struct KeyedRecorder<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let node: Node
        var codingPath: [any CodingKey] = []
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }

        private func record(_ key: Key, _ schema: Schema, required: Bool) {
            let property = Schema.Property(name: key.stringValue, schema: schema, isRequired: required)
            if let index = node.schema?.properties.firstIndex(where: { $0.name == key.stringValue }) {
                node.schema?.properties[index] = property
            } else {
                node.schema?.properties.append(property)
            }
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            node.optional.insert(key.stringValue)
            return false
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let (value, schema) = SchemaReflection.reflect(type)
            record(key, schema, required: !node.optional.contains(key.stringValue))
            return value
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            let (_, schema) = SchemaReflection.reflect(type)
            record(key, schema, required: false)
            return nil
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "nested containers are not reflected")
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "nested containers are not reflected")
        }

        func superDecoder() throws -> any Decoder { Recorder(node: node) }
        func superDecoder(forKey key: Key) throws -> any Decoder { Recorder(node: node) }
    }

    struct UnkeyedRecorder: UnkeyedDecodingContainer {
        let node: Node
        var codingPath: [any CodingKey] = []
        var count: Int? { 1 }
        var isAtEnd: Bool { currentIndex > 0 }
        var currentIndex = 0

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, schema) = SchemaReflection.reflect(type)
            node.schema?.element = schema
            currentIndex += 1
            return value
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "nested containers are not reflected"))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "nested containers are not reflected"))
        }

        mutating func superDecoder() throws -> any Decoder { Recorder(node: node) }
    }

    struct SingleValueRecorder: SingleValueDecodingContainer {
        let node: Node
        var codingPath: [any CodingKey] = []

        func decodeNil() -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, schema) = SchemaReflection.reflect(type)
            node.schema = schema
            return value
        }
    }
}

/// `[String: Value]`, reflected as an object with any keys.
protocol StringKeyedDictionary {
    static var valueType: any Decodable.Type { get }
    static var empty: Self { get }
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    static var valueType: any Decodable.Type { Value.self }
    static var empty: Self { [:] }
}
