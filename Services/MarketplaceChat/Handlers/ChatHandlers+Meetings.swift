import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

extension ChatHandlers {
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
}
