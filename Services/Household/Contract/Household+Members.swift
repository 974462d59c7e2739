import Contracts
import Envelope
import Foundation

extension Household {
    /// A code that lets whoever has it join one household, until it expires or is revoked.
    public struct Invite: Codable, Sendable, Equatable, FieldRules {
        public var code: String
        public var householdId: String
        public var createdAt: Date
        public var expiresAt: Date

        public init(code: String, householdId: String, createdAt: Date, expiresAt: Date) {
            self.code = code
            self.householdId = householdId
            self.createdAt = createdAt
            self.expiresAt = expiresAt
        }

        public static let fieldRules: [String: FieldRule] = ["code": Invites.codeRule, "householdId": .uuid]
    }

    public enum Invites {
        static let codeRule = FieldRule.pattern(
            "^[\(String(Bounds.inviteAlphabet))]{\(Bounds.inviteCodeLength)}$", meaning: "8 characters: capital letters and digits, without 0, O, 1, I and L")

        /// `household.invites.create.v1`: the owner makes an invite code, valid for HOUSEHOLD_INVITE_LIFETIME.
        public enum Create: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.invites.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/invites", name: "householdInviteCreate", access: .member, status: .created,
                errors: [.notFound, .forbidden, .conflict],
                summary: "The owner makes an invite code, valid 7 days (HOUSEHOLD_INVITE_LIFETIME); at most 20 valid at once")]
            public static let idempotency: Idempotency? = .stored()
            public typealias Request = Household.Reference
            public typealias Response = Household.Invite
        }

        /// `household.invites.list.v1`: the household's valid invite codes, for its owner.
        public enum List: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.invites.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/invites", name: "householdInvitesList", access: .member, errors: [.notFound, .forbidden],
                summary: "The household's invite codes still valid, newest first, for its owner")]
            public typealias Request = Household.Reference

            public struct Response: Codable, Sendable, Equatable {
                public var invites: [Household.Invite]

                public init(invites: [Household.Invite]) { self.invites = invites }
            }
        }

        /// `household.invites.revoke.v1`: the owner ends an invite code before it expires.
        public enum Revoke: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.invites.revoke.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/households/{householdId}/invites/{code}", name: "householdInviteRevoke", access: .member, errors: [.notFound, .forbidden],
                summary: "The owner ends an invite code: nobody joins with it any more")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds the code ended and answers not_found")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var code: String

                public init(householdId: String, code: String) {
                    self.householdId = householdId
                    self.code = code
                }

                public static let fieldRules: [String: FieldRule] = ["householdId": FieldRule.uuid.described("the household id"), "code": codeRule]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var revoked: Bool

                public init(revoked: Bool) { self.revoked = revoked }
            }
        }

        /// `household.invites.join.v1`: the caller joins the household of an invite code. Wrong codes
        /// back off per client network and per account.
        public enum Join: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.invites.join.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/join", name: "householdJoin", access: .owner, errors: [.notFound, .conflict, .rateLimited],
                summary: "Joins the household of an invite code (a member already gets the household); past 10 wrong codes, each waits longer",
                example: #"{"code":"K7PX4M2Q"}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "a member joining again gets the household as it is")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var code: String

                public init(code: String) { self.code = code }

                public static let fieldRules: [String: FieldRule] = ["code": FieldRule.text(1...32).described("the invite code; spaces and case do not matter")]
            }

            public typealias Response = Household.View
        }
    }

    public enum Members {
        /// `household.members.leave.v1`: the caller leaves; the owner hands the household over first,
        /// unless they are the last member (then the household and everything in it is deleted).
        public enum Leave: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.members.leave.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/leave", name: "householdLeave", access: .member, errors: [.notFound, .conflict],
                summary: "The caller leaves; what they did stays theirs. An owner transfers ownership first, unless the last member")]
            public static let idempotency: Idempotency? = .stored()
            public typealias Request = Household.Reference

            public struct Response: Codable, Sendable, Equatable {
                public var left: Bool
                /// Whether the household went with its last member.
                public var householdDeleted: Bool

                public init(left: Bool, householdDeleted: Bool) {
                    self.left = left
                    self.householdDeleted = householdDeleted
                }
            }
        }

        /// A member of one of the caller's households.
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            public var memberId: String

            public init(householdId: String, memberId: String) {
                self.householdId = householdId
                self.memberId = memberId
            }

            public static let fieldRules: [String: FieldRule] = [
                "householdId": FieldRule.uuid.described("the household id"), "memberId": FieldRule.uuid.described("the member id"),
            ]
        }

        /// `household.members.remove.v1`: the owner removes another member.
        public enum Remove: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.members.remove.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/households/{householdId}/members/{memberId}", name: "householdMemberRemove", access: .member,
                errors: [.notFound, .forbidden, .conflict], summary: "The owner removes another member; what they did stays theirs")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds the member gone and answers not_found")
            public typealias Request = Members.Reference
            public typealias Response = Household.View
        }

        /// `household.members.transfer-ownership.v1`: the owner makes another member the owner and stays a member.
        public enum TransferOwnership: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.members.transfer-ownership.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/members/{memberId}/ownership", name: "householdOwnershipTransfer", access: .member,
                errors: [.notFound, .forbidden, .conflict], summary: "The owner makes another member the owner, and stays a member")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat by the former owner is forbidden; the household is as the first left it")
            public typealias Request = Members.Reference
            public typealias Response = Household.View
        }
    }

    public enum Account {
        /// `household.account.erase.v1`: an account was deleted. Its memberships lose the account
        /// (a former member, whose history stays whole for the others); a household it owned passes to
        /// its longest-standing member, and one it was the last member of is deleted. Sent by `auth`
        /// through its outbox; repeats are harmless.
        public enum Erase: AccountEraseOperation {
            public static let service = Household.name
            public static let type = "household.account.erase.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing left to erase")
            public typealias Request = AccountErasure

            public struct Response: Codable, Sendable, Equatable {
                public var membershipsAnonymised: Int
                public var householdsDeleted: Int

                public init(membershipsAnonymised: Int, householdsDeleted: Int) {
                    self.membershipsAnonymised = membershipsAnonymised
                    self.householdsDeleted = householdsDeleted
                }
            }
        }
    }
}
