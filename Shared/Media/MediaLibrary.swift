import Contracts
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// A service's kept images: an upload is checked and re-encoded (`ImageProcessor`) outside any
/// transaction, then kept with its thumbnail in the caller's transaction. Who may read an image is
/// the owning service's decision: it keeps the id beside the thing the image belongs to (a chore, a
/// listing, a profile) and serves the files through a route of its own (`file`).
public struct MediaLibrary: Sendable {
    public let database: Database
    public let blobs: any MediaBlobStore
    public let limits: ImageLimits

    public init(database: Database, blobs: (any MediaBlobStore)? = nil, limits: ImageLimits = .init()) {
        self.database = database
        self.blobs = blobs ?? PostgresMediaBlobs(database: database)
        self.limits = limits
    }

    /// Checks and re-encodes an upload; `invalid` naming the field when it is not what it claims,
    /// out of bounds or damaged.
    public func process(_ content: Data, mediaType: String, field: String = "data.content", mediaTypeField: String = "data.mediaType") async throws
        -> ProcessedImage
    {
        try await ImageProcessor.process(Array(content), mediaType: mediaType, limits: limits, field: field, mediaTypeField: mediaTypeField)
    }

    /// Keeps `image` as `account`'s upload, in the caller's transaction.
    public func keep(_ image: ProcessedImage, account: UUID, on connection: PostgresConnection) async throws -> MediaRecord {
        let record = MediaRecord(
            id: UUID(), account: account, full: Self.facts(image.full), thumbnail: Self.facts(image.thumbnail),
            createdAt: database.now())
        try await blobs.put(MediaRecord.key(record.id, ImageVariant.full.rawValue), image.full.bytes, on: connection)
        try await blobs.put(MediaRecord.key(record.id, ImageVariant.thumbnail.rawValue), image.thumbnail.bytes, on: connection)
        try await database.insertMedia(record, on: connection)
        return record
    }

    public func record(_ id: UUID, on connection: PostgresConnection) async throws -> MediaRecord? {
        try await database.media(id, on: connection)
    }

    /// One file of a kept image, for a route that serves it: its bytes are left out when
    /// `ifNoneMatch` names its entity tag (the client has it).
    public func file(_ record: MediaRecord, _ variant: ImageVariant, ifNoneMatch: String?, on connection: PostgresConnection) async throws -> MediaFile {
        let facts = variant == .full ? record.full : record.thumbnail
        let etag = MediaRecord.etag(record.id, variant.rawValue)
        if HTTPBinding.FileReply.clientHas(etag, ifNoneMatch: ifNoneMatch) {
            return MediaFile(mediaType: facts.mediaType, etag: etag, content: nil)
        }
        guard let bytes = try await blobs.get(MediaRecord.key(record.id, variant.rawValue), on: connection) else {
            throw OperationError(.internal, "the image \(record.id) has no \(variant.rawValue) file")
        }
        return MediaFile(mediaType: facts.mediaType, etag: etag, content: Data(bytes))
    }

    /// Deletes kept images (their records, then their bytes).
    public func delete(_ ids: [UUID], on connection: PostgresConnection) async throws {
        try await database.deleteMedia(ids, blobs: blobs, on: connection)
    }

    static func facts(_ image: EncodedImage) -> MediaRecord.File {
        .init(mediaType: image.mediaType, width: image.width, height: image.height, size: image.bytes.count)
    }
}
