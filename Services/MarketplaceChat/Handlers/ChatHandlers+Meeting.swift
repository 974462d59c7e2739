import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// Meeting in person: a proposed meeting answered by the other side, and live locations shared for up
/// to an hour.
extension ChatHandlers {
    /// Live-location updates an account sends an hour: one every 5 s.
    static let sharing = RateLimit("chat.live-location", count: 720, per: .seconds(3_600), message: "too many live-location updates this hour; try again later")

    /// The other side's proposed meeting accepted or declined, once; the same answer again is the
    /// message as it is.
    @Sendable
    func answerMeeting(_ request: MarketplaceChat.Messages.Answer.Request, _ context: RequestContext) async throws -> MarketplaceChat.Message {
        try await database.transaction { connection in
            let (caller, membership) = try await member(request.conversationId, context, recording: true, locking: true, on: connection)
            guard let other = membership.other else { throw Self.otherGone }
            guard let id = UUID(uuidString: request.messageId),
                  let answered = try await messages.answer(id, request.answer, in: membership.conversation, side: membership.side, on: connection)
            else { throw Self.noProposal }
            if let before = answered.before {
                guard before == request.answer else {
                    throw OperationError(.conflict, "data.answer: you already \(before.rawValue) this meeting; propose another")
                }
            } else {
                try await live.append("message", ChatLive.MessageRef(c: membership.conversation, s: answered.seq), for: [caller.account, other], on: connection)
                if try await !live.isPresent(other, on: connection) {
                    try await push(
                        to: other, in: membership.conversation, kind: caller.kind, from: context.attributes.username ?? "Someone",
                        body: request.answer == .accepted ? "Meeting confirmed" : "Meeting declined", on: connection)
                }
            }
            guard let message = try await messages.messages(
                in: membership.conversation, of: caller.account, before: nil, only: answered.seq, limit: 1, on: connection).first
            else { throw Self.noProposal }
            return message
        }
    }

    @Sendable
    func shareLocation(_ request: MarketplaceChat.Locations.Share.Request, _ context: RequestContext) async throws -> MarketplaceChat.LiveLocations {
        var validation = Validation()
        Self.check(request.point, "data.point", &validation)
        if let minutes = request.minutes {
            let bounds = MarketplaceChat.Bounds.liveLocationMinutes
            validation.check(bounds.contains(minutes), "data.minutes", "must be \(bounds.lowerBound) to \(bounds.upperBound)")
        }
        try validation.finish()
        return try await database.transaction { connection in
            let (caller, membership) = try await member(request.conversationId, context, recording: true, locking: true, on: connection)
            guard let other = membership.other else { throw Self.otherGone }
            try await database.hit(Self.sharing, [.account(caller.account.uuidString)], at: database.now(), on: connection)
            try await locations.share(request.point, minutes: request.minutes, in: membership.conversation, side: membership.side, on: connection)
            try await live.append("location", ChatLive.LocationRef(c: membership.conversation, d: membership.side), for: [other], on: connection)
            return try await locations.locations(in: membership.conversation, for: membership.side, on: connection)
        }
    }

    @Sendable
    func locations(_ request: MarketplaceChat.Conversations.Reference, _ context: RequestContext) async throws -> MarketplaceChat.LiveLocations {
        try await database.transaction { connection in
            let (_, membership) = try await member(request.conversationId, context, on: connection)
            return try await locations.locations(in: membership.conversation, for: membership.side, on: connection)
        }
    }

    @Sendable
    func stopLocation(_ request: MarketplaceChat.Conversations.Reference, _ context: RequestContext) async throws -> MarketplaceChat.LiveLocations {
        try await database.transaction { connection in
            let (_, membership) = try await member(request.conversationId, context, locking: true, on: connection)
            if try await locations.stop(in: membership.conversation, side: membership.side, on: connection), let other = membership.other {
                try await live.append("location", ChatLive.LocationRef(c: membership.conversation, d: membership.side), for: [other], on: connection)
            }
            return try await locations.locations(in: membership.conversation, for: membership.side, on: connection)
        }
    }
}
