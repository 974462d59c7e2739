import Bus
import Contracts
import Envelope
import Foundation
import Media
import PaymentsContract
import PostgresNIO
import PostgresSupport

/// `payments.covers.*`: a campaign's cover picture, checked and re-encoded by the kit's media store
/// outside any transaction, put by its owner while it is open, seen by everyone in the app while
/// the campaign keeps its texts.
extension CampaignHandlers {
    /// Each upload is decoded and re-encoded: an owner puts at most this many an hour.
    static let covers = RateLimit("payments.covers", count: 20, per: .seconds(3_600), message: "too many cover pictures this hour; try again later")

    static let noCover = OperationError(
        .notFound, "data.campaignId: no such campaign with a cover picture",
        fields: [.init(field: "data.campaignId", message: "names no campaign with a cover picture")])

    @Sendable
    func setCover(_ request: Payments.Covers.Set.Request, _ context: RequestContext) async throws -> Payments.Campaign {
        // Only the owner of an open campaign, within the limit, gets the image decoded.
        try await database.transaction { connection in
            let (caller, row) = try await owned(request.campaignId, context, on: connection)
            guard row.view.state == .open else { throw Self.closed }
            try await database.hit(Self.covers, [.account(caller.uuidString)], at: database.now(), on: connection)
        }
        let image = try await campaigns.media.process(request.content, mediaType: request.mediaType)
        return try await database.transaction { connection in
            let (caller, row) = try await owned(request.campaignId, context, on: connection)
            guard row.view.state == .open else { throw Self.closed }
            let kept = try await campaigns.media.keep(image, account: caller, on: connection)
            try await campaigns.setCover(row.id, kept.id, on: connection)
            guard let changed = try await campaigns.campaign(row.id, viewer: caller, on: connection) else { throw Self.notFound }
            return changed.view
        }
    }

    @Sendable
    func removeCover(_ request: Payments.CampaignReference, _ context: RequestContext) async throws -> Payments.Campaign {
        try await database.transaction { connection in
            let (caller, row) = try await owned(request.campaignId, context, on: connection)
            try await campaigns.setCover(row.id, nil, on: connection)
            guard let changed = try await campaigns.campaign(row.id, viewer: caller, on: connection) else { throw Self.notFound }
            return changed.view
        }
    }

    @Sendable
    func cover(_ request: Payments.Covers.Get.Request, _ context: RequestContext) async throws -> MediaFile {
        try await database.transaction { connection in
            _ = try await access.caller(context, on: connection)
            guard let id = UUID(uuidString: request.campaignId), let record = try await campaigns.cover(of: id, on: connection) else { throw Self.noCover }
            return try await campaigns.media.file(record, request.size ?? .full, ifNoneMatch: request.ifNoneMatch, on: connection)
        }
    }
}
