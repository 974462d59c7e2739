import Contracts
import Envelope
import Foundation

extension Auth {
    /// The live event auth publishes when sessions end (logout, password reset or change, a reused
    /// refresh token, a deleted account): every gateway refuses their access tokens from then on.
    public static let sessionsRevokedEvent = "auth.sessions.revoked.v1"

    /// Sessions that ended, each until the last access token of it expires.
    public struct RevokedSessions: Codable, Sendable, Equatable {
        public var sessions: [RevokedSession]

        public init(sessions: [RevokedSession]) { self.sessions = sessions }
    }

    /// One ended session: its id (the tokens' `sid`) and when its last access token expires.
    public struct RevokedSession: Codable, Sendable, Equatable {
        public var sid: String
        public var until: Date

        public init(sid: String, until: Date) {
            self.sid = sid
            self.until = until
        }
    }

    public enum Sessions {
        /// `auth.sessions.revoked.v1`: the sessions that ended and still have access tokens that
        /// have not expired, in pages ordered by id. A gateway reads them when it starts, when it
        /// reconnects to the live events and now and then, so it refuses those tokens even when it
        /// missed the live event. Only services call it.
        public enum Revoked: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.sessions.revoked.v1"

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// The last `sid` of the previous page.
                public var after: String?
                /// Sessions per page, 1 to 10,000 (default 5,000).
                public var limit: Int?

                public init(after: String? = nil, limit: Int? = nil) {
                    self.after = after
                    self.limit = limit
                }

                public static let fieldRules: [String: FieldRule] = ["limit": .range(1...10_000), "after": .text(1...64)]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var sessions: [RevokedSession]
                /// The `after` of the next page; nil on the last.
                public var next: String?

                public init(sessions: [RevokedSession], next: String?) {
                    self.sessions = sessions
                    self.next = next
                }
            }
        }
    }
}
