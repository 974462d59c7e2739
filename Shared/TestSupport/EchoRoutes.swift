import Contracts
import Envelope
import GatewayService

/// HTTP routes to the `echo` fixture service, so gateway tests and the HTTP benchmark have an
/// operation to call. No product serves them.
public enum EchoRoutes {
    static let text: JSONValue = ["type": "string", "minLength": 1, "maxLength": 65536]

    public static let all: [BusRoute] = [
        BusRoute(
            .post, "/v1/echo", to: Echo.Message.Repeat.self, summary: "Answers with the text it was sent",
            requestBody: [
                "type": "object", "required": ["text"],
                "properties": ["text": text],
            ],
            response: response, errors: ErrorCode.allCases),
        BusRoute(
            .get, "/v1/echo", to: Echo.Message.Repeat.self, summary: "Answers with the text of the query",
            parameters: [.init("text", in: .query, required: true, description: "The text to repeat (longer texts: POST)", length: 1...1000)],
            response: response, errors: ErrorCode.allCases),
        BusRoute(
            .get, "/v1/echo/{text}", to: Echo.Message.Repeat.self, summary: "Answers with the text of the path",
            parameters: [.init("text", in: .path, description: "The text to repeat", length: 1...200)],
            response: response, errors: ErrorCode.allCases),
    ]

    static let response: JSONValue = [
        "type": "object", "required": ["text", "worker"],
        "properties": ["text": ["type": "string"], "worker": ["type": "string"]],
    ]
}
