import Envelope

extension OperationDeclaration {
    /// Checks a request against the operation's schema, as the gateway checks what clients send:
    /// for operations only services call, whose requests no gateway has looked at.
    public static func check(_ request: Request) throws(OperationError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(try EnvelopeCodec().encode(request))
        } catch {
            throw OperationError(.invalid, "data: the request cannot be read as JSON")
        }
        let issues = requestSchema.problems(value, at: "data")
        guard let first = issues.first else { return }
        throw OperationError(.invalid, "\(first.field): \(first.message)", fields: issues)
    }
}
