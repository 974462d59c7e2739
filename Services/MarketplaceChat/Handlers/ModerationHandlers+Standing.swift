import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO

/// `marketplace-chat.standing.*` and `appeals.create`: what moderation decided about the caller, and
/// their appeal of it; from any app, suspended or not.
extension ModerationHandlers {
    @Sendable
    func standing(_ request: MarketplaceChat.Standing.Get.Request, _ context: RequestContext) async throws -> MarketplaceChat.Standing.Get.Response {
        let account = try context.attributes.signedInAccount(for: "one's standing")
        return try await database.transaction { connection in
            let suspension = try await moderation.suspension(of: account, on: connection)
            return .init(suspended: suspension != nil, suspendedUntil: suspension?.until, notices: try await moderation.notices(of: account, on: connection))
        }
    }

    @Sendable
    func prepareAppeal(_ request: MarketplaceChat.Standing.Appeal.Request, _ context: RequestContext) async throws -> MarketplaceChat.Standing.Appeal.Request {
        try Self.checking(request, \.text, "data.text", MarketplaceChat.Bounds.appealText)
    }

    @Sendable
    func appeal(_ request: MarketplaceChat.Standing.Appeal.Request, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> MarketplaceChat.Notice
    {
        let account = try context.attributes.signedInAccount(for: "appeals")
        guard let id = UUID(uuidString: request.decisionId),
              let notice = try await moderation.notices(of: account, only: id, on: connection).first
        else { throw Self.noDecision }
        guard notice.appealable else {
            throw OperationError(.conflict, notice.appeal != nil ? "you appealed this decision already" : "this decision cannot be appealed (or the 30 days to appeal it ended)")
        }
        guard try await moderation.appeal(id, by: account, text: request.text, on: connection) else { throw OperationError(.conflict, "you appealed this decision already") }
        guard let appealed = try await moderation.notices(of: account, only: id, on: connection).first else { throw Self.noDecision }
        return appealed
    }
}
