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
        /// `auth.picture.set.v1`: sets the caller's profile picture: a PNG, JPEG or WebP file whose
        /// content is what `mediaType` says, within the size and pixel limits.
        public enum Set: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.picture.set.v1"
            public static let http = [HTTPBinding(
                .put, "/v1/me/picture", name: "mePictureSet", access: .owner, errors: [.tooLarge],
                summary: "Sets the caller's profile picture: PNG, JPEG or WebP, at most 512 KiB (AUTH_PICTURE_MAX_BYTES), 16 to 4096 pixels a side")]
            public static let idempotency: Idempotency? = .repeatable(because: "it replaces the picture with the same file again")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                /// `image/png`, `image/jpeg` or `image/webp`.
                public var mediaType: String
                /// The file, base64 in JSON.
                public var content: Data

                public init(mediaType: String, content: Data) {
                    self.mediaType = mediaType
                    self.content = content
                }

                /// The largest file any setting allows (AUTH_PICTURE_MAX_BYTES is at most this).
                public static let maxBytes = 8 << 20
                public static let fieldRules: [String: FieldRule] = [
                    "mediaType": .oneOf(Auth.PictureInfo.mediaTypes),
                    "content": FieldRule.bytes(1...maxBytes).described("the image file; its bytes must be what mediaType says (AUTH_PICTURE_MAX_BYTES at most)"),
                ]
            }

            public typealias Response = PictureInfo
        }

        /// `auth.picture.get.v1`: an account's profile picture, for any signed-in member: the one set,
        /// or the account's default picture.
        public enum Get: OperationDeclaration {
            public static let service = Auth.name
            public static let type = "auth.picture.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/users/{account}/picture", name: "userPicture", access: .signedIn, errors: [.notFound], summary: "An account's profile picture: the one set, or its default one")]

            public typealias Request = AccountRequest

            public struct Response: Codable, Sendable, Equatable {
                public var info: PictureInfo
                /// The file, base64 in JSON.
                public var content: Data

                public init(info: PictureInfo, content: Data) {
                    self.info = info
                    self.content = content
                }
            }
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
