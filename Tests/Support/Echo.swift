import Contracts
import Envelope

/// The `echo` service: a fixture for bus tests, contract tests, gateway tests and the bus benchmark,
/// served by the `echo-worker` executable. No product depends on it.
public enum Echo: ServiceContract {
    public static let name = "echo"
    public static let summary = "serves echo.message.repeat.v1 (a test and benchmark fixture)."
    /// Its signed-in routes are for a fixture.
    public static let apps = AppScope.everyApp
    public static let operations: [any OperationDeclaration.Type] = [Message.Repeat.self]

    public enum Message {
        /// `echo.message.repeat.v1`: answers with the text it was sent, after an optional delay.
        public enum Repeat: OperationDeclaration {
            public static let service = Echo.name
            public static let type = "echo.message.repeat.v1"
            public static let http = [
                HTTPBinding(.post, "/v1/echo", name: "echoPost", errors: ErrorCode.allCases, summary: "Answers with the text it was sent"),
                HTTPBinding(
                    .get, "/v1/echo", name: "echoQuery", errors: ErrorCode.allCases, summary: "Answers with the text of the query",
                    parameterRules: ["text": FieldRule.text(1...1000).described("The text to repeat (longer texts: POST)")]),
                HTTPBinding(
                    .get, "/v1/echo/{text}", name: "echoPath", errors: ErrorCode.allCases, summary: "Answers with the text of the path",
                    parameterRules: ["text": FieldRule.text(1...200).described("The text to repeat")]),
            ]
            public static let idempotency: Idempotency? = .repeatable(because: "it changes nothing")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// 1 to 65,536 Unicode scalars.
                public var text: String
                /// Milliseconds to wait before answering (0 to 60,000), to model a slow handler.
                public var delayMilliseconds: Int?
                /// When set, the handler fails with this error code instead of answering.
                public var fail: ErrorCode?
                /// Milliseconds to hold its thread (0 to 60,000) before anything else, never suspending,
                /// as an expensive computation does (a blocking wait, so that tests burn no CPU).
                public var busyMilliseconds: Int?

                public init(text: String, delayMilliseconds: Int? = nil, fail: ErrorCode? = nil, busyMilliseconds: Int? = nil) {
                    self.text = text
                    self.delayMilliseconds = delayMilliseconds
                    self.fail = fail
                    self.busyMilliseconds = busyMilliseconds
                }

                public static let textLength = 1...65_536

                // The test hooks are not part of the documented API.
                public static let fieldRules: [String: FieldRule] = [
                    "text": .text(textLength), "delayMilliseconds": .undocumented, "fail": .undocumented, "busyMilliseconds": .undocumented,
                ]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var text: String
                /// Which worker process answered (`<host>:<pid>`), so tests can see load spread.
                public var worker: String

                public init(text: String, worker: String) {
                    self.text = text
                    self.worker = worker
                }
            }
        }
    }
}
