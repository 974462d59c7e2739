import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract

/// Blocks set from either chat app: the marketplace's blocks, which Nebula, having no marketplace,
/// reaches here. A block holds everywhere: the two neither find, see nor message each other.
extension ChatHandlers {
    @Sendable
    func block(_ request: MarketplaceChat.Blocks.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Blocks.Outcome {
        let account = try PeopleHandlers.account(request.accountId)
        return try await database.transaction { connection in
            let caller = try await access.caller(context, recording: true, on: connection)
            try await PeopleHandlers.block(account, by: caller.account, blocks: blocks, database: database, on: connection)
            return .init(blocked: true)
        }
    }

    @Sendable
    func unblock(_ request: MarketplaceChat.Blocks.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Blocks.Outcome {
        let account = try PeopleHandlers.account(request.accountId)
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            try await blocks.unblock(account, by: caller.account, on: connection)
            return .init(blocked: false)
        }
    }

    @Sendable
    func blocked(_ request: Empty, _ context: RequestContext) async throws -> MarketplaceChat.Blocks.List.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            return .init(blocked: try await blocks.blockedChatters(by: caller.account, on: connection))
        }
    }
}
