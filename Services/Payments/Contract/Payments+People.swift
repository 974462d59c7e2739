import Contracts
import Envelope
import Foundation

extension Payments {
    /// Something a person did in the fundraising app, as others see it.
    public enum ActivityKind: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case campaignStarted = "campaign_started"
        case donated
    }

    public struct Activity: Codable, Sendable, Equatable, FieldRules {
        public var kind: ActivityKind
        public var campaignId: String
        /// Gone when the campaign was closed (its texts are deleted then).
        public var campaignTitle: String?
        /// What was given (`donated` only).
        public var amount: Money?
        public var at: Date

        public init(kind: ActivityKind, campaignId: String, campaignTitle: String?, amount: Money?, at: Date) {
            self.kind = kind
            self.campaignId = campaignId
            self.campaignTitle = campaignTitle
            self.amount = amount
            self.at = at
        }

        public static let fieldRules: [String: FieldRule] = ["campaignId": .uuid]
    }

    /// A person's public profile in the fundraising app: their karma points, open campaigns and
    /// latest activity (campaigns started, donations made unless given anonymously). Their name,
    /// picture and university come from auth (`GET /v1/users/{account}`), which also finds them by
    /// username or display name (`GET /v1/users?q=`).
    public struct Profile: Codable, Sendable, Equatable {
        public var person: Person
        public var karma: Int64
        /// Open, the newest first (20 at most).
        public var campaigns: [Campaign]
        /// The latest first (20 at most).
        public var activity: [Activity]

        public init(person: Person, karma: Int64, campaigns: [Campaign], activity: [Activity]) {
            self.person = person
            self.karma = karma
            self.campaigns = campaigns
            self.activity = activity
        }
    }

    public struct PersonReference: Codable, Sendable, Equatable, FieldRules {
        public var accountId: String

        public init(accountId: String) { self.accountId = accountId }

        public static let fieldRules: [String: FieldRule] = ["accountId": .uuid]
    }

    public enum People {
        /// `payments.people.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.people.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/people/{accountId}", name: "person", access: .signedIn, errors: [.notFound, .forbidden],
                summary: """
                    Someone's fundraising profile: karma points, open campaigns, latest campaigns started and donations made (never an \
                    anonymous one); 404 for anyone who never used the fundraising app
                    """)]

            public typealias Request = PersonReference
            public typealias Response = Profile
        }
    }
}
