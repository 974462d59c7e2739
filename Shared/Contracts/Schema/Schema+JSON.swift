import Envelope

extension Schema {
    /// The schema as JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it), every object inline.
    public var json: JSONValue { render { $0.json } }

    /// The schema as JSON Schema with each named object or enumeration (`name`) moved into
    /// `components` and referred to by `$ref`, for the API document: a message type used in several
    /// places is one type in a generated client. One whose name another shape holds stays inline.
    public func json(hoisting components: inout [String: JSONValue]) -> JSONValue {
        guard let name, kind == .object || allowed != nil, !isDictionary, !isAny else { return render { $0.json(hoisting: &components) } }
        // A parent's rule may describe a member differently in each place: the description stays at the reference.
        var shape = self
        shape.name = nil
        shape.description = nil
        let body = shape.json(hoisting: &components)
        if let held = components[name], held != body { return render { $0.json(hoisting: &components) } }
        components[name] = body
        var reference: [String: JSONValue] = ["$ref": .string("#/components/schemas/\(name)")]
        if let description { reference["description"] = .string(description) }
        return .object(reference)
    }

    /// This schema's own keywords, with `child` rendering each member, item and value schema.
    private func render(_ child: (Schema) -> JSONValue) -> JSONValue {
        if isAny { return .object(description.map { ["description": .string($0)] } ?? [:]) }
        var out: [String: JSONValue] = ["type": .string(kind.rawValue)]
        switch kind {
        case .object where isDictionary:
            out["additionalProperties"] = element.map(child) ?? true
            if let count {
                out["minProperties"] = .number(Double(count.lowerBound))
                out["maxProperties"] = .number(Double(count.upperBound))
            }
            if let keyLength { out["propertyNames"] = ["minLength": .number(Double(keyLength.lowerBound)), "maxLength": .number(Double(keyLength.upperBound))] }
        case .object:
            out["properties"] = .object(Dictionary(uniqueKeysWithValues: properties.map { ($0.name, child($0.schema)) }))
            let required = properties.filter(\.isRequired).map { JSONValue.string($0.name) }
            if !required.isEmpty { out["required"] = .array(required) }
        case .array:
            if let element { out["items"] = child(element) }
            if let count {
                out["minItems"] = .number(Double(count.lowerBound))
                out["maxItems"] = .number(Double(count.upperBound))
            }
        default:
            break
        }
        if let allowed { out["enum"] = .array(allowed.map(JSONValue.string)) }
        if let allowedIntegers { out["enum"] = .array(allowedIntegers.map { JSONValue.number(Double($0)) }) }
        if let length {
            out["minLength"] = .number(Double(length.lowerBound))
            out["maxLength"] = .number(Double(length.upperBound))
        }
        if let pattern { out["pattern"] = .string(pattern) }
        if let format { out["format"] = .string(format) }
        if let contentEncoding { out["contentEncoding"] = .string(contentEncoding) }
        if let range {
            if range.lowerBound > Int64.min { out["minimum"] = .number(Double(range.lowerBound)) }
            if range.upperBound < Int64.max { out["maximum"] = .number(Double(range.upperBound)) }
        }
        if let description { out["description"] = .string(description) }
        if isSecret { out["writeOnly"] = true }
        return .object(out)
    }
}
