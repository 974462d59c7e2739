import Contracts
import Envelope
import Foundation

extension Auth {
    /// A profile picture's facts (its bytes come from `auth.picture.get.v1`).
    public struct PictureInfo: Codable, Sendable, Equatable, FieldRules {
        /// The image formats a picture may be.
        public static let mediaTypes = ["image/png", "image/jpeg", "image/webp"]
        public static let fieldRules: [String: FieldRule] = ["mediaType": .oneOf(mediaTypes), "size": .described("bytes")]

        public var mediaType: String
        public var width: Int
        public var height: Int
        /// The file's size in bytes.
        public var size: Int
        public var updatedAt: Date
        /// Whether this is the account's default picture (drawn from its id) because none was set.
        public var isDefault: Bool

        public init(mediaType: String, width: Int, height: Int, size: Int, updatedAt: Date, isDefault: Bool = false) {
            self.mediaType = mediaType
            self.width = width
            self.height = height
            self.size = size
            self.updatedAt = updatedAt
            self.isDefault = isDefault
        }
    }

    public enum Picture {
        /// `auth.picture.set.v1`: sets the caller's profile picture from an image sent as itself
        /// (JPEG, PNG, WebP or HEIC), checked by its bytes and kept re-encoded without metadata.
        public enum Set: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.picture.set.v1"
            public static let http = [HTTPBinding(
                .put, "/v1/me/picture", name: "mePictureSet", access: .owner, errors: [.tooLarge, .rateLimited],
                summary: """
                    Sets the caller's profile picture: the image itself as the body (Content-Type image/jpeg, image/png, image/webp or \
                    image/heic), at most 5 MiB (AUTH_PICTURE_MAX_BYTES), at least 16 pixels a side; kept without its metadata (no GPS \
                    position), at most 2048 pixels a side, HEIC as JPEG, with a WebP thumbnail; 20 uploads an hour
                    """,
                upload: .image)]
            public static let idempotency: Idempotency? = .repeatable(because: "it replaces the picture with the same image again")

            public typealias Request = ImageUpload

            public typealias Response = PictureInfo
        }

        /// `auth.picture.get.v1`: an account's profile picture, for any signed-in member: the one set,
        /// or the account's default one; the image itself, or its thumbnail.
        public enum Get: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.picture.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/users/{account}/picture", name: "userPicture", access: .signedIn, errors: [.notFound],
                summary: "An account's profile picture (the one set, or its default one) as the image itself, or its thumbnail (size=thumbnail)",
                file: .image())]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public static let fieldRules: [String: FieldRule] = [
                    "account": AccountRequest.fieldRules["account"]!, "size": ImageVariant.fieldRule, "ifNoneMatch": .undocumented,
                ]
                public var account: String
                public var size: ImageVariant?
                /// The request's `If-None-Match` (the gateway copies the header).
                public var ifNoneMatch: String?

                public init(account: String, size: ImageVariant? = nil, ifNoneMatch: String? = nil) {
                    self.account = account
                    self.size = size
                    self.ifNoneMatch = ifNoneMatch
                }
            }

            public typealias Response = MediaFile
        }

        /// `auth.picture.delete.v1`: removes the caller's profile picture; the default one shows again.
        public enum Delete: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.picture.delete.v1"
            public static let http = [HTTPBinding(.delete, "/v1/me/picture", name: "mePictureDelete", access: .owner, summary: "Removes the caller's profile picture")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds no picture and answers deleted: false")
            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                /// Whether there was a picture.
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }
    }
}
