import Foundation

/// One file of a kept image as a route's reply carries it; `HTTPBinding.FileReply.image` sends it
/// to the client as the file itself.
public struct MediaFile: Codable, Sendable, Equatable {
    public var mediaType: String
    /// Quoted, as HTTP writes it. A kept image never changes, so the tag names its bytes forever.
    public var etag: String
    /// The bytes (base64 on the bus); nil when the client has them (its If-None-Match named `etag`).
    public var content: Data?

    public init(mediaType: String, etag: String, content: Data?) {
        self.mediaType = mediaType
        self.etag = etag
        self.content = content
    }
}

extension HTTPBinding.FileReply {
    /// A `MediaFile` reply: the image with its own media type and entity tag, 304 when the client
    /// has it. `cacheControl` is the route's: `private, no-cache` where the file a path names can
    /// change (a profile picture), longer where it cannot.
    public static func image(cacheControl: String = "private, no-cache") -> Self {
        .init(content: "content", mediaType: "image/*", etag: "etag", ifNoneMatch: "ifNoneMatch", mediaTypeMember: "mediaType", cacheControl: cacheControl)
    }
}

extension HTTPBinding.FileUpload {
    /// An image upload into `mediaType` and `content`: JPEG, PNG, WebP or HEIC, at most
    /// `ImageType.maxUploadBytes`.
    public static let image = Self(mediaTypes: ImageType.mediaTypes, maxBytes: ImageType.maxUploadBytes)
}
