import Contracts
import Envelope
import Foundation

extension Payments {
    public enum Bookmarks {
        /// `payments.bookmarks.set.v1`
        public enum Set: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.bookmarks.set.v1"
            public static let http = [HTTPBinding(
                .put, "/v1/campaigns/{campaignId}/bookmark", name: "bookmarkSet", access: .signedIn, errors: [.notFound, .forbidden, .rateLimited],
                summary: "Bookmarks a campaign (at most 500); its milestones reach the caller")]
            public static let idempotency: Idempotency? = .repeatable(because: "a bookmark is there or not")

            public typealias Request = CampaignReference
            public typealias Response = Campaign
        }

        /// `payments.bookmarks.remove.v1`
        public enum Remove: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.bookmarks.remove.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/campaigns/{campaignId}/bookmark", name: "bookmarkRemove", access: .signedIn, errors: [.forbidden],
                summary: "Removes the caller's bookmark of a campaign, if there was one")]
            public static let idempotency: Idempotency? = .repeatable(because: "a removed bookmark stays removed")

            public typealias Request = CampaignReference

            public struct Response: Codable, Sendable, Equatable {
                /// Whether there was a bookmark to remove.
                public var removed: Bool

                public init(removed: Bool) { self.removed = removed }
            }
        }

        /// `payments.bookmarks.list.v1`
        public enum List: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.bookmarks.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/me/bookmarks", name: "bookmarkList", access: .signedIn, errors: [.forbidden],
                summary: "The campaigns the caller bookmarked, the latest bookmark first")]

            public typealias Request = PageRequest
            public typealias Response = CampaignPage
        }
    }

    public enum Account {
        /// `payments.account.erase.v1`: an account was deleted. Its campaigns lose their texts and
        /// close, its bookmarks and name go; the ledger keeps every entry, without the account (money
        /// history is never rewritten). Sent by `auth` through its outbox; repeats are harmless.
        public enum Erase: AccountEraseOperation {
            public static let service = Payments.name
            public static let type = "payments.account.erase.v1"
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds nothing left to erase")
            public typealias Request = AccountErasure

            public struct Response: Codable, Sendable, Equatable {
                public var campaignsClosed: Int
                public var bookmarksDeleted: Int

                public init(campaignsClosed: Int, bookmarksDeleted: Int) {
                    self.campaignsClosed = campaignsClosed
                    self.bookmarksDeleted = bookmarksDeleted
                }
            }
        }
    }
}
