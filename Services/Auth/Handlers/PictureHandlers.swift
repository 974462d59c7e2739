import AuthContract
import Bus
import Contracts
import Crypto
import Envelope
import Foundation
import Media
import PostgresSupport

/// `auth.picture.set.v1`, `auth.picture.get.v1` and `auth.picture.delete.v1`: profile pictures on
/// the kit's media store, checked for what they are, not for what they claim, and kept without
/// their metadata; an account without one shows its `DefaultPicture`.
struct PictureHandlers: Sendable {
    let database: Database
    let sessions: SessionPostgresRepository
    let pictures: PicturePostgresRepository
    let directory: UserDirectoryPostgresRepository
    let configuration: AuthConfiguration

    /// What a picture may be: at least 16 pixels a side, checked on the header before decoding.
    static let limits = ImageLimits(minSide: 16)
    /// Each upload is decoded and re-encoded, so an account may send a few an hour, kept or not.
    static let uploads = RateLimit("pictures.per.account", count: 20, per: .seconds(3_600), message: "too many pictures this hour; try again later")

    @Sendable
    func set(_ request: Auth.Picture.Set.Request, _ context: RequestContext) async throws -> Auth.PictureInfo {
        let caller = try AccountRules.caller(context)  // a caller without a session learns nothing about the file
        let limit = configuration.pictureMaxBytes
        guard request.content.count <= limit else {
            throw OperationError(
                .tooLarge, "data.content: the picture is \(request.content.count) bytes; the limit is \(limit)",
                fields: [.init(field: "data.content", message: "must be at most \(limit) bytes")])
        }
        try await database.transaction { connection in
            try await database.hit(Self.uploads, [.account(caller.account.uuidString.lowercased())], at: database.now(), on: connection)
        }
        let image = try await pictures.media.process(request.content, mediaType: request.mediaType)
        return try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { caller, connection in
            try await pictures.save(account: caller.account, image: image, on: connection)
        }
    }

    /// The picture set, or the account's default one; `not_found` for an account that does not exist.
    @Sendable
    func get(_ request: Auth.Picture.Get.Request, _ context: RequestContext) async throws -> MediaFile {
        _ = try AccountRules.caller(context)
        let account = try UserDirectoryHandlers.account(.init(account: request.account))
        return try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { _, connection in
            if let picture = try await pictures.picture(of: account, on: connection) {
                return try await pictures.media.file(picture, request.size ?? .full, ifNoneMatch: request.ifNoneMatch, on: connection)
            }
            guard try await directory.profile(of: account, on: connection) != nil else { throw UserDirectoryHandlers.noSuchAccount }
            return Self.defaultFile(for: account, ifNoneMatch: request.ifNoneMatch)
        }
    }

    @Sendable
    func delete(_ request: Empty, _ context: RequestContext) async throws -> Auth.Picture.Delete.Response {
        try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { caller, connection in
            .init(deleted: try await pictures.delete(account: caller.account, on: connection))
        }
    }

    /// The default picture (one size: it is small), tagged by its bytes.
    static func defaultFile(for account: UUID, ifNoneMatch: String?) -> MediaFile {
        let png = DefaultPicture.png(for: account)
        let etag = "\"default-" + SHA256.hash(data: png).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
        if HTTPBinding.FileReply.clientHas(etag, ifNoneMatch: ifNoneMatch) {
            return MediaFile(mediaType: "image/png", etag: etag, content: nil)
        }
        return MediaFile(mediaType: "image/png", etag: etag, content: png)
    }
}
