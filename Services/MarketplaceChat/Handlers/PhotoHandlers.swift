import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import Media
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.photos.*`: pictures a seller uploads for a listing, checked and re-encoded
/// by the kit's media store; served to whoever may see the listing, and to the uploader.
struct PhotoHandlers: Sendable {
    let database: Database
    let photos: PhotoStore
    let listings: ListingHandlers
    let access: MarketAccess

    /// Each upload is decoded and re-encoded: a trader sends at most this many an hour.
    static let uploads = RateLimit("marketplace.photos", count: 60, per: .seconds(3_600), message: "too many photos this hour; try again later")

    static let notFound = OperationError(
        .notFound, "data.photoId: there is no such photo", fields: [.init(field: "data.photoId", message: "is not a photo you may see")])

    /// Outside the transaction: the caller may upload (a trader, within the limit), and the image is
    /// checked and re-encoded before any row is written.
    @Sendable
    func prepareUpload(_ request: MarketplaceChat.Photos.Upload.Request, _ context: RequestContext) async throws
        -> (image: ProcessedImage, request: MarketplaceChat.Photos.Upload.Request)
    {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            try await database.hit(Self.uploads, [.account(caller.account.uuidString)], at: database.now(), on: connection)
        }
        return (try await photos.media.process(request.content, mediaType: request.mediaType), request)
    }

    @Sendable
    func upload(_ prepared: (image: ProcessedImage, request: MarketplaceChat.Photos.Upload.Request), _ context: RequestContext,
                on connection: PostgresConnection) async throws -> MarketplaceChat.Photo {
        let caller = try await access.caller(context, recording: true, on: connection)
        let record = try await photos.keep(prepared.image, by: caller.account, on: connection)
        return MarketplaceChat.Photo(
            id: ListingStore.text(record.id), mediaType: record.full.mediaType, width: record.full.width, height: record.full.height,
            size: record.full.size, createdAt: record.createdAt)
    }

    @Sendable
    func get(_ request: MarketplaceChat.Photos.Get.Request, _ context: RequestContext) async throws -> MediaFile {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            guard let id = UUID(uuidString: request.photoId), let photo = try await photos.photo(id, on: connection) else { throw Self.notFound }
            if photo.uploadedBy != caller.account {
                guard let listing = photo.listing, let row = try await listings.listings.listing(listing, on: connection),
                      try await listings.sees(row, caller, on: connection)
                else { throw Self.notFound }
            }
            return try await photos.media.file(photo.record, request.size ?? .full, ifNoneMatch: request.ifNoneMatch, on: connection)
        }
    }
}
