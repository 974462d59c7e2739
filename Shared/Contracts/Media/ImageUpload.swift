import Envelope
import Foundation

/// An image sent as the body of an upload route (`upload: .image`): the gateway passes the body's
/// Content-Type and bytes (base64 on the bus). The request of every route that takes an image alone.
public struct ImageUpload: Codable, Sendable, Equatable, FieldRules {
    /// The body's Content-Type.
    public var mediaType: String
    /// The body.
    public var content: Data

    public init(mediaType: String, content: Data) {
        self.mediaType = mediaType
        self.content = content
    }

    public static let fieldRules: [String: FieldRule] = [
        "mediaType": .oneOf(ImageType.mediaTypes),
        "content": FieldRule.bytes(1...ImageType.maxUploadBytes).described("the image; its bytes must be what mediaType says"),
    ]
}
