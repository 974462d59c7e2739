import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import Media
import PostgresNIO
import PostgresSupport

/// `household.photos.*`: pictures members upload for the household's chores, bills and posts,
/// checked and re-encoded by the kit's media store, served to the household's members only.
struct PhotoHandlers: Sendable {
    let database: Database
    let photos: PhotoStore
    let access: HouseholdAccess

    /// Each upload is decoded and re-encoded: a member sends at most this many an hour.
    static let uploads = RateLimit("household.photos", count: 60, per: .seconds(3_600), message: "too many photos this hour; try again later")

    static let notFound = OperationError(
        .notFound, "data.photoId: the household has no such photo", fields: [.init(field: "data.photoId", message: "is not one of the household's photos")])

    /// Outside the transaction: the caller may upload (a member, within the limit), and the image is
    /// checked and re-encoded before any row is written.
    @Sendable
    func prepareUpload(_ request: Household.Photos.Upload.Request, _ context: RequestContext) async throws
        -> (image: ProcessedImage, request: Household.Photos.Upload.Request)
    {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            try await database.hit(Self.uploads, [.other("\(member.household)/\(member.member)")], at: database.now(), on: connection)
        }
        return (try await photos.media.process(request.content, mediaType: request.mediaType), request)
    }

    @Sendable
    func upload(_ prepared: (image: ProcessedImage, request: Household.Photos.Upload.Request), _ context: RequestContext,
                on connection: PostgresConnection) async throws -> Household.Photo {
        let member = try await access.member(of: prepared.request.householdId, context, on: connection)
        let account = try HouseholdAccess.caller(context)
        return try await photos.keep(prepared.image, in: member.household, by: member.member, account: account, on: connection).view
    }

    @Sendable
    func get(_ request: Household.Photos.Get.Request, _ context: RequestContext) async throws -> MediaFile {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            guard let id = UUID(uuidString: request.photoId), let photo = try await photos.photo(id, of: member.household, on: connection),
                  try await !photos.showsExpiredPost(photo, on: connection)
            else { throw Self.notFound }
            return try await photos.media.file(photo.record, request.size ?? .full, ifNoneMatch: request.ifNoneMatch, on: connection)
        }
    }
}
