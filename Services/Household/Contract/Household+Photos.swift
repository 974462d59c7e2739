import Contracts
import Envelope
import Foundation

extension Household {
    /// A picture kept for a household (a chore's before and after, a receipt, a board post's), which
    /// only its members see. Uploaded first, then named by the thing it shows; one not named by
    /// anything within a day is deleted.
    public struct Photo: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var mediaType: String
        public var width: Int
        public var height: Int
        /// Bytes of the kept image.
        public var size: Int
        public var uploadedBy: String
        public var createdAt: Date

        public init(id: String, mediaType: String, width: Int, height: Int, size: Int, uploadedBy: String, createdAt: Date) {
            self.id = id
            self.mediaType = mediaType
            self.width = width
            self.height = height
            self.size = size
            self.uploadedBy = uploadedBy
            self.createdAt = createdAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "uploadedBy": .uuid]
    }

    public enum Photos {
        /// `household.photos.upload.v1`
        public enum Upload: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.photos.upload.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/photos", name: "householdPhotoUpload", access: .member, status: .created,
                errors: [.notFound, .tooLarge, .rateLimited],
                summary: """
                    Keeps a picture for the household: the image itself as the body (JPEG, PNG, WebP or HEIC, at most 5 MiB), kept \
                    without its metadata with a WebP thumbnail; name it within a day on a chore's turn, a bill or a post (60 an hour each)
                    """,
                upload: .image)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var mediaType: String
                public var content: Data

                public init(householdId: String, mediaType: String, content: Data) {
                    self.householdId = householdId
                    self.mediaType = mediaType
                    self.content = content
                }

                public static let fieldRules: [String: FieldRule] = [
                    "householdId": .uuid, "mediaType": .oneOf(ImageType.mediaTypes),
                    "content": FieldRule.bytes(1...ImageType.maxUploadBytes).described("the image; its bytes must be what mediaType says"),
                ]
            }

            public typealias Response = Household.Photo
        }

        /// `household.photos.get.v1`: the picture or its thumbnail, for the household's members.
        public enum Get: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.photos.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/photos/{photoId}", name: "householdPhoto", access: .member, errors: [.notFound],
                summary: "A household picture as the image itself, or its thumbnail (size=thumbnail), for its members only", file: .image())]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var photoId: String
                public var size: ImageVariant?
                /// The request's `If-None-Match` (the gateway copies the header).
                public var ifNoneMatch: String?

                public init(householdId: String, photoId: String, size: ImageVariant? = nil, ifNoneMatch: String? = nil) {
                    self.householdId = householdId
                    self.photoId = photoId
                    self.size = size
                    self.ifNoneMatch = ifNoneMatch
                }

                public static let fieldRules: [String: FieldRule] = [
                    "householdId": .uuid, "photoId": FieldRule.uuid.described("the photo id"), "size": ImageVariant.fieldRule, "ifNoneMatch": .undocumented,
                ]
            }

            public typealias Response = MediaFile
        }
    }
}
