import Envelope

/// The JSON Schema of a message, as the gateway checks requests against it and the OpenAPI document
/// states it. Built from the Swift type by `SchemaReflection` plus the type's `FieldRules`, so a
/// message's shape is written once, as its Swift type.
public struct Schema: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case string, integer, number, boolean, object, array
    }

    /// One member of an object.
    public struct Property: Sendable, Equatable {
        public var name: String
        public var schema: Schema
        public var isRequired: Bool
    }

    public var kind: Kind
    /// Object members, in the order the type declares them.
    public var properties: [Property] = []
    /// Arrays: the schema of each item. Objects with arbitrary keys (dictionaries): each value's.
    public var element: Schema? {
        get { elements.first }
        set { elements = newValue.map { [$0] } ?? [] }
    }
    private var elements: [Schema] = []
    /// Strings: the values allowed.
    public var allowed: [String]?
    /// Strings: the length in Unicode scalars, as JSON Schema counts.
    public var length: ClosedRange<Int>?
    /// Strings: a regular expression (ECMA 262 / ICU syntax) the whole text must match; give it `^` and `$`.
    public var pattern: String?
    /// What `pattern` matches, in words, for messages.
    public var patternMeaning: String?
    /// Strings: `date-time`, `email`, ...; integers: `int64`, `int32` (an annotation; the service
    /// checks the meaning).
    public var format: String?
    /// Strings: `base64` for bytes.
    public var contentEncoding: String?
    /// Integers: the smallest and largest value.
    public var range: ClosedRange<Int64>?
    /// Integers: the values allowed (`enum` in the document).
    public var allowedIntegers: [Int64]?
    /// Arrays: how many items.
    public var count: ClosedRange<Int>?
    public var description: String?
    /// A secret the caller sends (a password, a code): never stored in an idempotency record or logged,
    /// and `writeOnly` in the document.
    public var isSecret = false
    /// Objects whose members are any keys (dictionaries).
    public var isDictionary = false
    /// Any JSON value (`SchemaAnyValue`): `kind` is not checked, only `anyBounds`.
    public var isAny = false
    /// How deep and large an `isAny` value may be.
    public var anyBounds: AnyValueBounds?
    /// Dictionaries: how long a key may be, in Unicode scalars.
    public var keyLength: ClosedRange<Int>?
    /// The message type an object or enumeration schema was reflected from, as its component in the
    /// API document is named (`RefundCalculatorScenario` for `RefundCalculator.Scenario`), so
    /// generated clients get one type per message type. Nil for generic and trimmed (`keeping`) objects.
    public var name: String?
    /// Dropped from its object's schema once the rules are applied (`FieldRule.undocumented`).
    var isUndocumented = false

    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// The member `name` of an object schema.
    public subscript(property name: String) -> Schema? {
        properties.first { $0.name == name }?.schema
    }

    /// An object schema with only the members `names` keeps (and their required flags).
    public func keeping(_ keep: (String) -> Bool) -> Schema {
        var copy = self
        copy.properties = properties.filter { keep($0.name) }
        if copy.properties.count != properties.count { copy.name = nil }
        return copy
    }
}
