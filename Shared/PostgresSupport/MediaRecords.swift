import Crypto
import Foundation
import PostgresNIO

/// Where a kept image's bytes live. PostgreSQL (`PostgresMediaBlobs`, the default) writes them in
/// the caller's transaction; a store elsewhere (an S3-compatible bucket) ignores the connection, so
/// the media record is written after its blobs and removed before them: a crash between leaves an
/// unreferenced blob, never a record without its bytes.
public protocol MediaBlobStore: Sendable {
    func put(_ key: String, _ bytes: [UInt8], on connection: PostgresConnection) async throws
    func get(_ key: String, on connection: PostgresConnection) async throws -> [UInt8]?
    func remove(_ keys: [String], on connection: PostgresConnection) async throws
}

/// Blobs in the service's own schema (the kit's `media_blobs` table).
public struct PostgresMediaBlobs: MediaBlobStore {
    let logger: Logger

    public init(database: Database) { logger = database.logger }

    public func put(_ key: String, _ bytes: [UInt8], on connection: PostgresConnection) async throws {
        try await connection.query("INSERT INTO media_blobs (key, content) VALUES (\(key), \(Data(bytes)))", logger: logger)
    }

    public func get(_ key: String, on connection: PostgresConnection) async throws -> [UInt8]? {
        for try await content in try await connection.query("SELECT content FROM media_blobs WHERE key = \(key)", logger: logger).decode(Data.self) {
            return Array(content)
        }
        return nil
    }

    public func remove(_ keys: [String], on connection: PostgresConnection) async throws {
        guard !keys.isEmpty else { return }
        try await connection.query("DELETE FROM media_blobs WHERE key = ANY(\(keys))", logger: logger)
    }
}

/// Blobs sealed at rest (`Seal`) under one key, each bound to `context` and its own blob key, so
/// a blob copied under another key or another owner does not open: a chat's images under their
/// conversation's key. Removal passes through.
public struct SealedMediaBlobs: MediaBlobStore {
    let inner: any MediaBlobStore
    let key: SymmetricKey
    let context: String

    public init(_ inner: any MediaBlobStore, key: SymmetricKey, context: String) {
        self.inner = inner
        self.key = key
        self.context = context
    }

    public func put(_ key: String, _ bytes: [UInt8], on connection: PostgresConnection) async throws {
        try await inner.put(key, Array(try Seal.seal(Data(bytes), key: self.key, context: "\(context)/\(key)")), on: connection)
    }

    public func get(_ key: String, on connection: PostgresConnection) async throws -> [UInt8]? {
        guard let box = try await inner.get(key, on: connection) else { return nil }
        return Array(try Seal.open(Data(box), key: self.key, context: "\(context)/\(key)"))
    }

    public func remove(_ keys: [String], on connection: PostgresConnection) async throws {
        try await inner.remove(keys, on: connection)
    }
}

/// A kept image: who uploaded it and its two files' facts. Kept images never change (a new upload
/// is a new record), so an id and a variant name one file forever, and its entity tag says so.
public struct MediaRecord: Sendable, Equatable {
    /// One file's facts.
    public struct File: Sendable, Equatable {
        public var mediaType: String
        public var width: Int
        public var height: Int
        public var size: Int

        public init(mediaType: String, width: Int, height: Int, size: Int) {
            self.mediaType = mediaType
            self.width = width
            self.height = height
            self.size = size
        }
    }

    public var id: UUID
    /// The uploader: erasing the account erases the image.
    public var account: UUID
    public var full: File
    public var thumbnail: File
    public var createdAt: Date

    public init(id: UUID, account: UUID, full: File, thumbnail: File, createdAt: Date) {
        self.id = id
        self.account = account
        self.full = full
        self.thumbnail = thumbnail
        self.createdAt = createdAt
    }

    /// The blob key of one file: `<id>/full`, `<id>/thumbnail`.
    public static func key(_ id: UUID, _ variant: String) -> String { "\(id.uuidString.lowercased())/\(variant)" }

    /// The entity tag of one file (quoted, as HTTP writes it).
    public static func etag(_ id: UUID, _ variant: String) -> String { "\"\(id.uuidString.lowercased())-\(variant)\"" }
}

extension Database {
    /// Records `record` (its blobs already put).
    public func insertMedia(_ record: MediaRecord, on connection: PostgresConnection) async throws {
        let (full, thumbnail) = (record.full, record.thumbnail)
        try await connection.query(
            """
            INSERT INTO media_objects (id, account_id, media_type, width, height, size,
                thumbnail_media_type, thumbnail_width, thumbnail_height, thumbnail_size, created_at)
            VALUES (\(record.id), \(record.account), \(full.mediaType), \(full.width), \(full.height), \(full.size),
                \(thumbnail.mediaType), \(thumbnail.width), \(thumbnail.height), \(thumbnail.size), \(record.createdAt))
            """, logger: logger)
    }

    public func media(_ id: UUID, on connection: PostgresConnection) async throws -> MediaRecord? {
        let rows = try await connection.query(
            """
            SELECT id, account_id, media_type, width, height, size, thumbnail_media_type, thumbnail_width, thumbnail_height, thumbnail_size, created_at
            FROM media_objects WHERE id = \(id)
            """, logger: logger)
        for try await (id, account, type, width, height, size, thumbnailType, thumbnailWidth, thumbnailHeight, thumbnailSize, created)
            in rows.decode((UUID, UUID, String, Int, Int, Int, String, Int, Int, Int, Date).self) {
            return MediaRecord(
                id: id, account: account, full: .init(mediaType: type, width: width, height: height, size: size),
                thumbnail: .init(mediaType: thumbnailType, width: thumbnailWidth, height: thumbnailHeight, size: thumbnailSize), createdAt: created)
        }
        return nil
    }

    /// Deletes the records of `ids` and then their blobs; returns how many records there were.
    @discardableResult
    public func deleteMedia(_ ids: [UUID], blobs: any MediaBlobStore, on connection: PostgresConnection) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let rows = try await connection.query("DELETE FROM media_objects WHERE id = ANY(\(ids)) RETURNING id", logger: logger)
        var deleted: [UUID] = []
        for try await id in rows.decode(UUID.self) { deleted.append(id) }
        try await blobs.remove(deleted.flatMap { [MediaRecord.key($0, "full"), MediaRecord.key($0, "thumbnail")] }, on: connection)
        return deleted.count
    }

    /// Deletes every image `account` uploaded (on erasure); returns how many.
    @discardableResult
    public func forgetMedia(of account: UUID, blobs: (any MediaBlobStore)? = nil, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("SELECT id FROM media_objects WHERE account_id = \(account)", logger: logger)
        var ids: [UUID] = []
        for try await id in rows.decode(UUID.self) { ids.append(id) }
        return try await deleteMedia(ids, blobs: blobs ?? PostgresMediaBlobs(database: self), on: connection)
    }
}
