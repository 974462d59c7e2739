import Contracts
import Envelope
import Foundation

extension Auth {
    /// A policy in its current version and where the caller stands with it.
    public struct Agreement: Codable, Sendable, Equatable, FieldRules {
        public static let fieldRules: [String: FieldRule] = ["version": .described("the current version"), "url": .format("uri")]

        public enum Status: String, Codable, Sendable, SchemaEnumeration {
            /// The current version is signed.
            case signed
            /// An older version is signed; the current one needs signing.
            case outdated
            case unsigned
            case withdrawn
        }

        /// `terms`, `privacy`, `marketplace-rules`, `marketing-email`, ...
        public var policy: String
        /// The current version.
        public var version: Int
        public var title: String
        /// Where the text of this version is.
        public var url: String
        /// Whether the apps need it signed before the account is used.
        public var required: Bool
        public var status: Status
        /// The version the caller signed last, if any.
        public var signedVersion: Int?
        public var signedAt: Date?
        public var withdrawnAt: Date?

        public init(policy: String, version: Int, title: String, url: String, required: Bool, status: Status,
                    signedVersion: Int?, signedAt: Date?, withdrawnAt: Date?) {
            self.policy = policy
            self.version = version
            self.title = title
            self.url = url
            self.required = required
            self.status = status
            self.signedVersion = signedVersion
            self.signedAt = signedAt
            self.withdrawnAt = withdrawnAt
        }
    }

    public enum Agreements {
        /// `auth.agreements.list.v1`: every current policy with the caller's standing.
        public enum List: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.agreements.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/me/agreements", name: "meAgreementsList", access: .owner, summary: "Every current policy (terms, privacy notice, ...) and whether the caller agreed to it")]
            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                public var agreements: [Agreement]

                public init(agreements: [Agreement]) { self.agreements = agreements }
            }
        }

        /// `auth.agreements.sign.v1`: the caller signs a policy's current version (naming it proves
        /// which text was shown).
        public enum Sign: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.agreements.sign.v1"
            public static let http = [HTTPBinding(
                .put, "/v1/me/agreements/{policy}", name: "meAgreementSign", access: .owner, errors: [.notFound, .conflict],
                summary: "Signs the policy's current version (the one shown to the user)")]
            public static let idempotency: Idempotency? = .repeatable(because: "signing a signed version again keeps the first signature")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var policy: String
                public var version: Int

                public init(policy: String, version: Int) {
                    self.policy = policy
                    self.version = version
                }

                public static let fieldRules: [String: FieldRule] = ["policy": .policy, "version": .minimum(1)]
            }

            public typealias Response = Agreement
        }

        /// `auth.agreements.withdraw.v1`: the caller withdraws agreement to a policy.
        public enum Withdraw: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.agreements.withdraw.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/me/agreements/{policy}", name: "meAgreementWithdraw", access: .owner, errors: [.notFound], summary: "Withdraws the caller's agreement to the policy")]
            public static let idempotency: Idempotency? = .repeatable(because: "withdrawing a withdrawn agreement changes nothing")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var policy: String

                public init(policy: String) { self.policy = policy }

                public static let fieldRules: [String: FieldRule] = ["policy": .policy]
            }

            public typealias Response = Agreement
        }
    }
}
