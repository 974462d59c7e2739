/// An image format uploads may have, by media type. HEIC (what iPhones take) is kept as JPEG, which
/// every client can show.
public enum ImageType: String, Sendable, CaseIterable, Codable {
    case jpeg = "image/jpeg"
    case png = "image/png"
    case webp = "image/webp"
    case heic = "image/heic"

    /// Every upload media type, for bindings and field rules.
    public static let mediaTypes = allCases.map(\.rawValue)

    /// The largest upload: its base64 must fit a bus envelope (8 MiB) with room to spare.
    public static let maxUploadBytes = 5 << 20

    /// The kept image's longest side: larger uploads are shrunk to it.
    public static let keptSide = 2_048
    /// The thumbnail's longest side.
    public static let thumbnailSide = 320
    /// The largest kept file: its base64 fits a bus envelope (8 MiB) when a route serves it.
    public static let maxKeptBytes = 4 << 20
}

/// Which file of a kept image a route serves: the image (at most `ImageType.keptSide` a side) or
/// its thumbnail (at most `ImageType.thumbnailSide`, WebP).
public enum ImageVariant: String, Sendable, Codable, SchemaEnumeration {
    case full, thumbnail

    public static let fieldRule = FieldRule.described("full (the image, at most \(ImageType.keptSide) pixels a side) or thumbnail (WebP, at most \(ImageType.thumbnailSide)); full when left out")
}
