import Envelope

/// The `echo` service: a fixture for bus tests, contract tests and the bus benchmark, served by
/// the `echo-worker` executable. No product depends on it.
public enum Echo {
    public enum Message {
        /// `echo.message.repeat.v1`: answers with the text it was sent, after an optional delay.
        public enum Repeat: BusOperation {
            public static let service = "echo"
            public static let type = "echo.message.repeat.v1"

            public struct Request: Codable, Sendable, Equatable {
                /// 1 to 65,536 Unicode scalars.
                public var text: String
                /// Milliseconds to wait before answering (0 to 60,000), to model a slow handler.
                public var delayMilliseconds: Int?
                /// When set, the handler fails with this error code instead of answering.
                public var fail: ErrorCode?

                public init(text: String, delayMilliseconds: Int? = nil, fail: ErrorCode? = nil) {
                    self.text = text
                    self.delayMilliseconds = delayMilliseconds
                    self.fail = fail
                }
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
