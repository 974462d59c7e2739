@testable import Contracts
import Envelope
import Foundation
import Testing

/// Schemas come from the Swift types: members, kinds, optionality, nesting, and the rules beside them.
@Suite(.timeLimit(.minutes(2))) struct SchemaReflectionTests {
    enum Colour: String, Codable, SchemaEnumeration { case red, green }

    struct Inner: Codable, FieldRules {
        var count: Int
        static let fieldRules: [String: FieldRule] = ["count": .range(0...9)]
    }

    struct Sample: Codable, FieldRules {
        var name: String
        var nickname: String?
        var amount: Int64
        var flag: Bool?
        var colour: Colour
        var when: Date
        var bytes: Data?
        var tags: [String]
        var inner: Inner?
        var labels: [String: String]
        var hook: Int?

        static let fieldRules: [String: FieldRule] = [
            "name": FieldRule.text(1...5).described("a short name"), "tags": FieldRule.count(1...3).each(.text(1...2)),
            "hook": .undocumented,
        ]
    }

    @Test func membersKindsAndOptionalityComeFromTheType() {
        let schema = SchemaReflection.schema(of: Sample.self)
        #expect(schema.kind == .object)
        #expect(schema.properties.map(\.name) == ["name", "nickname", "amount", "flag", "colour", "when", "bytes", "tags", "inner", "labels"])
        #expect(schema.properties.filter(\.isRequired).map(\.name) == ["name", "amount", "colour", "when", "tags", "labels"])
        #expect(schema[property: "amount"]?.kind == .integer)
        #expect(schema[property: "flag"]?.kind == .boolean)
        #expect(schema[property: "colour"]?.allowed == ["red", "green"])
        #expect(schema[property: "when"]?.format == "date-time")
        #expect(schema[property: "bytes"]?.contentEncoding == "base64")
        #expect(schema[property: "tags"]?.element?.kind == .string)
        #expect(schema[property: "inner"]?[property: "count"]?.range == 0...9, "a nested type brings its own rules")
        #expect(schema[property: "labels"]?.isDictionary == true && schema[property: "labels"]?.element?.kind == .string)
        #expect(schema[property: "name"]?.length == 1...5 && schema[property: "name"]?.description == "a short name")
        #expect(schema[property: "tags"]?.count == 1...3 && schema[property: "tags"]?.element?.length == 1...2)
    }

    @Test func theJSONSchemaSaysTheSame() {
        let json = SchemaReflection.schema(of: Sample.self).json
        #expect(json["required"] == ["name", "amount", "colour", "when", "tags", "labels"])
        #expect(json["properties"]?["name"] == ["type": "string", "minLength": 1, "maxLength": 5, "description": "a short name"])
        #expect(json["properties"]?["inner"]?["properties"]?["count"] == ["type": "integer", "minimum": 0, "maximum": 9])
        #expect(json["properties"]?["labels"] == ["type": "object", "additionalProperties": ["type": "string"]])
        #expect(json["properties"]?["hook"] == nil, "undocumented members are left out")
    }

    /// In the API document each message type is one component, referred to wherever it is used.
    @Test func namedTypesBecomeComponentsReferredToByRef() {
        var components: [String: JSONValue] = [:]
        let sample = SchemaReflection.schema(of: Sample.self)
        let json = sample.json(hoisting: &components)
        #expect(json == ["$ref": "#/components/schemas/SchemaReflectionTestsSample"])
        let properties = components["SchemaReflectionTestsSample"]?["properties"]
        #expect(properties?["inner"] == ["$ref": "#/components/schemas/SchemaReflectionTestsInner"])
        #expect(properties?["colour"] == ["$ref": "#/components/schemas/SchemaReflectionTestsColour"])
        #expect(properties?["amount"] == ["type": "integer", "format": "int64"], "Int64 says its width")
        #expect(components["SchemaReflectionTestsInner"]?["properties"]?["count"] == ["type": "integer", "minimum": 0, "maximum": 9])
        #expect(components["SchemaReflectionTestsColour"] == ["type": "string", "enum": ["red", "green"]])

        // A member described in place keeps its description beside the reference; another shape
        // under a name already taken stays inline.
        var described = SchemaReflection.schema(of: Inner.self)
        described.description = "how many"
        #expect(described.json(hoisting: &components) == ["$ref": "#/components/schemas/SchemaReflectionTestsInner", "description": "how many"])
        var other = SchemaReflection.schema(of: Inner.self)
        other.properties[0].schema.range = 0...99
        #expect(other.json(hoisting: &components)["properties"]?["count"]?["maximum"] == 99)
        #expect(components["SchemaReflectionTestsInner"]?["properties"]?["count"]?["maximum"] == 9)
        #expect(sample.keeping { $0 != "hook" }.name != nil && sample.keeping { $0 != "name" }.name == nil, "a trimmed object is anonymous")
    }

    @Test func validationNamesEveryFieldInDeclarationOrder() throws {
        let schema = SchemaReflection.schema(of: Sample.self)
        let value = try JSONValue.parse(Array(#"""
            {"name": "far too long", "amount": 1.5, "colour": "blue", "when": "x", "tags": ["abc", "d", "e", "f"],
             "inner": {"count": 10}, "labels": {"a": 1}, "flag": null, "hook": "anything"}
            """#.utf8))
        let problems = schema.problems(value, at: "data")
        #expect(problems.map(\.field) == [
            "data.name", "data.amount", "data.colour", "data.when", "data.tags", "data.tags[0]", "data.inner.count", "data.labels.a",
        ])
        #expect(problems.map(\.message) == [
            "must be 1 to 5 characters", "must be a whole number", "must be one of red, green",
            "must be a date and time in RFC 3339, with a time zone (2026-11-21T14:00:00.000Z)", "must have 1 to 3 items",
            "must be 1 to 2 characters", "must be from 0 to 9", "must be a string",
        ])
        let missing = schema.problems(["nickname": "x"], at: "data")
        #expect(missing.map(\.field) == ["data.name", "data.amount", "data.colour", "data.when", "data.tags", "data.labels"])
        #expect(Set(missing.map(\.message)) == ["is required"])
    }

    @Test func lengthsCountUnicodeScalarsAndPatternsMatchTheWholeText() {
        var schema = Schema(.string)
        schema.length = 1...3
        schema.pattern = "^[a-z𝒒]+$"
        schema.patternMeaning = "lowercase letters"
        #expect(schema.problems("𝒒𝒒𝒒", at: "x").isEmpty)
        #expect(schema.problems("𝒒𝒒𝒒𝒒", at: "x").map(\.message) == ["must be 1 to 3 characters"])
        #expect(schema.problems("aB", at: "x").map(\.message) == ["must be lowercase letters"])
        #expect(65_536.grouped == "65,536" && 100.grouped == "100" && (-1_000).grouped == "-1,000")
    }

    /// A whole number may be one of a list (a timer's settings): an `enum` in the document, and any
    /// other number refused naming its field.
    @Test func aWholeNumberOfAListIsAnEnum() {
        struct TimerChoice: Codable, FieldRules {
            var seconds: Int
            static let fieldRules: [String: FieldRule] = ["seconds": .oneOf([0, 30, 300])]
        }
        let schema = SchemaReflection.schema(of: TimerChoice.self)
        #expect(schema.json["properties"]?["seconds"] == ["type": "integer", "enum": [0, 30, 300]])
        #expect(schema.problems(["seconds": 30], at: "data").isEmpty)
        #expect(schema.problems(["seconds": 45], at: "data").map { "\($0.field): \($0.message)" } == ["data.seconds: must be one of 0, 30, 300"])
    }

    /// A free-form value's bounds hold at any shape: 500 levels of nesting in a few kilobytes are
    /// refused at once, and so is a value too large; a dictionary's members are counted and named.
    @Test func freeFormValuesAndDictionariesAreBounded() throws {
        struct Open: SchemaAnyValue {
            static let schemaSample = Open()
            static let schemaBounds = AnyValueBounds(depth: 3, bytes: 40)
            init() {}
            init(from decoder: any Decoder) throws {}
        }
        struct Holder: Decodable, FieldRules {
            var value: Open
            var answers: [String: Open]
            static let fieldRules: [String: FieldRule] = ["answers": FieldRule.count(0...2).keys(1...5)]
        }
        let schema = SchemaReflection.schema(of: Holder.self)
        let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        let value = try JSONValue.parse(Array(#"{"value":\#(deep),"answers":{}}"#.utf8))
        #expect(schema.problems(value, at: "data").map { "\($0.field): \($0.message)" } == ["data.value: must nest at most 3 levels"])
        let fine = try JSONValue.parse(Array(#"{"value":[[1]],"answers":{"a":[1],"b":true}}"#.utf8))
        #expect(schema.problems(fine, at: "data").isEmpty)
        let large = try JSONValue.parse(Array(#"{"value":"\#(String(repeating: "x", count: 41))","answers":{"a":1,"b":2,"c":3}}"#.utf8))
        #expect(schema.problems(large, at: "data").map(\.message) == ["must be at most 40 bytes of JSON", "must have 0 to 2 members"])
        let longName = try JSONValue.parse(Array(#"{"value":1,"answers":{"abcdef":1}}"#.utf8))
        #expect(schema.problems(longName, at: "data").map(\.message) == ["has a member name of 6 characters; names are 1 to 5"])
    }
}
