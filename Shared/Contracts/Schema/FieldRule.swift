import Envelope

/// What a field's Swift type cannot say: its bounds, pattern, allowed values and description. A
/// message type lists them by field name in `FieldRules.fieldRules`, next to its fields; the bound
/// the handler checks is the same constant.
public struct FieldRule: Sendable {
    fileprivate var changes: [@Sendable (inout Schema) -> Void] = []

    public init() {}

    private func adding(_ change: @escaping @Sendable (inout Schema) -> Void) -> FieldRule {
        var copy = self
        copy.changes.append(change)
        return copy
    }

    /// Applies the rule to a field's schema.
    public func apply(to schema: inout Schema) {
        for change in changes { change(&schema) }
    }

    /// A text of `length` Unicode scalars.
    public func text(_ length: ClosedRange<Int>) -> FieldRule { adding { $0.length = length } }
    /// A text matching `pattern` (anchored with `^` and `$`); `meaning` says in words what matches, for
    /// the message when a text does not ("must be the 6 digits from the mail").
    public func pattern(_ pattern: String, meaning: String) -> FieldRule {
        adding {
            $0.pattern = pattern
            $0.patternMeaning = meaning
        }
    }
    /// A text of a known format (`email`, `uri`): documented; the service checks it.
    public func format(_ format: String) -> FieldRule { adding { $0.format = format } }
    /// A text that is one of `values`.
    public func oneOf(_ values: [String]) -> FieldRule { adding { $0.allowed = values } }
    /// A whole number that is one of `values`.
    public func oneOf<I: BinaryInteger & Sendable>(_ values: [I]) -> FieldRule {
        let allowed = values.map { Int64(clamping: $0) }
        return adding { $0.allowedIntegers = allowed }
    }
    /// A whole number within `range`.
    public func range<I: BinaryInteger & Sendable>(_ range: ClosedRange<I>) -> FieldRule {
        adding { $0.range = Int64(clamping: range.lowerBound)...Int64(clamping: range.upperBound) }
    }
    /// At least `minimum`.
    public func minimum<I: BinaryInteger & Sendable>(_ minimum: I) -> FieldRule { range(Int64(clamping: minimum)...Int64.max) }
    /// An array of `count` items, or a dictionary of `count` members.
    public func count(_ count: ClosedRange<Int>) -> FieldRule { adding { $0.count = count } }
    /// Bytes (base64 in JSON) of a size within `size`: the base64 text's length follows.
    public func bytes(_ size: ClosedRange<Int>) -> FieldRule {
        adding { $0.length = (size.lowerBound + 2) / 3 * 4...(size.upperBound + 2) / 3 * 4 }
    }
    /// A dictionary whose member names are `length` Unicode scalars.
    public func keys(_ length: ClosedRange<Int>) -> FieldRule { adding { $0.keyLength = length } }
    /// The rule for each item of an array (or each value of a dictionary).
    public func each(_ rule: FieldRule) -> FieldRule {
        adding { schema in
            guard var element = schema.element else { return }
            rule.apply(to: &element)
            schema.element = element
        }
    }
    /// What the field means, for the document.
    public func described(_ text: String) -> FieldRule { adding { $0.description = text } }
    /// A secret the caller sends: left out of idempotency fingerprints, `writeOnly` in the document.
    public var secret: FieldRule { adding { $0.isSecret = true } }
    /// A member clients are not told about (a test fixture's hooks): left out of the schema, so the
    /// document does not show it and the gateway passes it on unchecked, as any unknown member.
    public var undocumented: FieldRule { adding { $0.isUndocumented = true } }

    public static func text(_ length: ClosedRange<Int>) -> FieldRule { FieldRule().text(length) }
    public static func pattern(_ pattern: String, meaning: String) -> FieldRule { FieldRule().pattern(pattern, meaning: meaning) }
    public static func format(_ format: String) -> FieldRule { FieldRule().format(format) }
    public static func oneOf(_ values: [String]) -> FieldRule { FieldRule().oneOf(values) }
    public static func oneOf<I: BinaryInteger & Sendable>(_ values: [I]) -> FieldRule { FieldRule().oneOf(values) }
    public static func range<I: BinaryInteger & Sendable>(_ range: ClosedRange<I>) -> FieldRule { FieldRule().range(range) }
    public static func minimum<I: BinaryInteger & Sendable>(_ minimum: I) -> FieldRule { FieldRule().minimum(minimum) }
    public static func count(_ count: ClosedRange<Int>) -> FieldRule { FieldRule().count(count) }
    public static func keys(_ length: ClosedRange<Int>) -> FieldRule { FieldRule().keys(length) }
    public static func bytes(_ size: ClosedRange<Int>) -> FieldRule { FieldRule().bytes(size) }
    public static func each(_ rule: FieldRule) -> FieldRule { FieldRule().each(rule) }
    public static func described(_ text: String) -> FieldRule { FieldRule().described(text) }
    public static var secret: FieldRule { FieldRule().secret }
    public static var undocumented: FieldRule { FieldRule().undocumented }
}

extension FieldRule {
    /// An email address as people type it (the service normalises and checks it).
    public static let email = FieldRule.text(3...254).format("email")
    /// A name people type: display names, scenario names, contact names (`Validation.checkName`).
    public static let personName = FieldRule.text(Validation.nameLength)
        .pattern("^[^\\u0000-\\u001F\\u007F-\\u009F]*$", meaning: "without control characters").described("no control characters; surrounding spaces are trimmed")
    /// Text of `length` Unicode scalars without control characters (a title, a form's line).
    public static func plainText(_ length: ClosedRange<Int>) -> FieldRule {
        FieldRule.text(length).pattern("^[^\\u0000-\\u001F\\u007F-\\u009F]*$", meaning: "text without control characters")
    }
    /// A lowercase UUID naming a thing (an account, a scenario).
    public static let uuid = FieldRule.text(36...36)
}

/// A message type that states the rules of some of its fields. Every name must be one of its
/// fields (a test reflects every contract and fails on a rule for a field that does not exist).
public protocol FieldRules {
    static var fieldRules: [String: FieldRule] { get }
}

/// A string enumeration, shown in schemas as its raw values.
/// A value of any JSON shape, whose checks depend on data the service holds (an interview answer, by
/// its question's kind): the schema accepts anything and the service checks it, naming the field.
public protocol SchemaAnyValue: Decodable {
    static var schemaSample: Self { get }
    /// How deep and how large the value may be: the gateway refuses more before the bus.
    static var schemaBounds: AnyValueBounds { get }
}

extension SchemaAnyValue {
    public static var schemaBounds: AnyValueBounds { .default }
}

/// The bounds of a free-form value: its nesting (a scalar is 1 deep, `[1]` 2) and the bytes of its
/// JSON as sent, give or take whitespace.
public struct AnyValueBounds: Sendable, Equatable {
    public var depth: Int
    public var bytes: Int

    public init(depth: Int, bytes: Int) {
        self.depth = depth
        self.bytes = bytes
    }

    public static let `default` = AnyValueBounds(depth: 8, bytes: 16_384)
}

public protocol SchemaEnumeration: CaseIterable, RawRepresentable, Decodable where RawValue == String {}

extension SchemaEnumeration {
    static var schemaValues: [String] { allCases.map(\.rawValue) }
    static var schemaSample: Self { allCases.first! }
}

extension ErrorCode: SchemaEnumeration {}

extension FieldRule {
    /// Paging: what to pass as `before` for the next page.
    public static let nextPage = FieldRule.described("pass as after for the next page; absent on the last page")
}
