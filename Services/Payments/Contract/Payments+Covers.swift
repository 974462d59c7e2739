import Contracts
import Envelope
import Foundation

extension Payments {
    /// A campaign's cover picture (the seed's campaign image), served by `GET /v1/campaigns/{campaignId}/cover`.
    public struct Cover: Codable, Sendable, Equatable {
        public var mediaType: String
        public var width: Int
        public var height: Int

        public init(mediaType: String, width: Int, height: Int) {
            self.mediaType = mediaType
            self.width = width
            self.height = height
        }
    }

    public enum Covers {
        /// `payments.covers.set.v1`
        public enum Set: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.covers.set.v1"
            public static let http = [HTTPBinding(
                .put, "/v1/campaigns/{campaignId}/cover", name: "campaignCoverSet", access: .owner, errors: [.notFound, .conflict, .tooLarge, .rateLimited],
                summary: """
                    Puts the cover picture of an open campaign of the caller's: the image itself as the body (JPEG, PNG, WebP or HEIC, at most \
                    5 MiB), kept without its metadata with a WebP thumbnail, in place of the one before (20 an hour)
                    """,
                upload: .image)]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat puts the same picture again in place of the first")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var campaignId: String
                public var mediaType: String
                public var content: Data

                public init(campaignId: String, mediaType: String, content: Data) {
                    self.campaignId = campaignId
                    self.mediaType = mediaType
                    self.content = content
                }

                public static let fieldRules: [String: FieldRule] = ImageUpload.fieldRules.merging(["campaignId": .uuid]) { $1 }
            }

            public typealias Response = Campaign
        }

        /// `payments.covers.remove.v1`
        public enum Remove: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.covers.remove.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/campaigns/{campaignId}/cover", name: "campaignCoverRemove", access: .owner, errors: [.notFound],
                summary: "Deletes the cover picture of a campaign of the caller's")]
            public static let idempotency: Idempotency? = .repeatable(because: "a removed cover stays removed")
            public typealias Request = CampaignReference
            public typealias Response = Campaign
        }

        /// `payments.covers.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = Payments.name
            public static let type = "payments.covers.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/campaigns/{campaignId}/cover", name: "campaignCover", access: .signedIn, errors: [.notFound, .forbidden],
                summary: "A campaign's cover picture as the image itself, or its thumbnail (size=thumbnail); gone with the campaign's texts", file: .image())]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var campaignId: String
                public var size: ImageVariant?
                /// The request's `If-None-Match` (the gateway copies the header).
                public var ifNoneMatch: String?

                public init(campaignId: String, size: ImageVariant? = nil, ifNoneMatch: String? = nil) {
                    self.campaignId = campaignId
                    self.size = size
                    self.ifNoneMatch = ifNoneMatch
                }

                public static let fieldRules: [String: FieldRule] = ["campaignId": .uuid, "size": ImageVariant.fieldRule, "ifNoneMatch": .undocumented]
            }

            public typealias Response = MediaFile
        }
    }
}
