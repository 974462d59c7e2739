import Bus
import AuthContract
import Contracts
import Envelope
import Foundation
import PostgresSupport

/// `auth.picture.set.v1`, `auth.picture.get.v1` and `auth.picture.delete.v1`: profile pictures,
/// checked for what they are, not for what they claim; an account without one shows its
/// `DefaultPicture`.
struct PictureHandlers: Sendable {
    let database: Database
    let sessions: SessionPostgresRepository
    let pictures: PicturePostgresRepository
    let directory: UserDirectoryPostgresRepository
    let configuration: AuthConfiguration

    /// The longest side, in pixels.
    static let maxSide = 4096
    static let minSide = 16

    @Sendable
    func set(_ request: Auth.Picture.Set.Request, _ context: RequestContext) async throws -> Auth.PictureInfo {
        _ = try AccountRules.caller(context)  // a caller without a session learns nothing about the file
        let facts = try Self.check(request, maxBytes: configuration.pictureMaxBytes)
        return try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { caller, connection in
            try await pictures.save(account: caller.account, facts: facts, content: request.content, on: connection)
        }
    }

    /// The picture set, or the account's default one; `not_found` for an account that does not exist.
    @Sendable
    func get(_ request: Auth.AccountRequest, _ context: RequestContext) async throws -> Auth.Picture.Get.Response {
        _ = try AccountRules.caller(context)
        let account = try UserDirectoryHandlers.account(request)
        return try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { _, connection in
            if let picture = try await pictures.picture(of: account, on: connection) { return picture }
            guard let profile = try await directory.profile(of: account, on: connection) else { throw UserDirectoryHandlers.noSuchAccount }
            return .init(info: profile.picture, content: DefaultPicture.png(for: account))
        }
    }

    @Sendable
    func delete(_ request: Empty, _ context: RequestContext) async throws -> Auth.Picture.Delete.Response {
        try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { caller, connection in
            .init(deleted: try await pictures.delete(account: caller.account, on: connection))
        }
    }

    /// The file's facts, or every problem with the request named.
    static func check(_ request: Auth.Picture.Set.Request, maxBytes limit: Int) throws -> ImageFacts {
        guard request.content.count <= limit else {
            throw OperationError(
                .tooLarge, "data.content: the picture is \(request.content.count) bytes; the limit is \(limit)",
                fields: [.init(field: "data.content", message: "must be at most \(limit) bytes")])
        }
        var validation = Validation()
        validation.check(
            ImageFacts.mediaTypes.contains(request.mediaType), "data.mediaType", "must be one of \(ImageFacts.mediaTypes.joined(separator: ", "))")
        let facts = ImageFacts.inspect(Array(request.content))
        if let facts {
            validation.check(
                !ImageFacts.mediaTypes.contains(request.mediaType) || facts.mediaType == request.mediaType, "data.content",
                "is \(facts.mediaType), not \(request.mediaType)")
            validation.check(
                (Self.minSide...Self.maxSide).contains(facts.width) && (Self.minSide...Self.maxSide).contains(facts.height), "data.content",
                "is \(facts.width)×\(facts.height) pixels; each side must be \(Self.minSide) to \(Self.maxSide)")
        } else {
            validation.fail("data.content", "is not a PNG, JPEG or WebP image")
        }
        try validation.finish()
        guard let facts else { throw OperationError.invalid(field: "data.content", "is not a PNG, JPEG or WebP image") }
        return facts
    }
}
