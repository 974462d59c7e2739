import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO
import PostgresSupport

/// `marketplace-chat.blocks.*` and `marketplace-chat.spots.list.v1`: whom the caller keeps away,
/// and where to meet.
struct PeopleHandlers: Sendable {
    let database: Database
    let blocks: BlockStore
    let traders: TraderStore
    let access: MarketAccess

    /// Blocks a trader sets an hour.
    static let blocking = RateLimit("marketplace.blocks", count: 100, per: .seconds(3_600), message: "too many blocks this hour; try again later")

    static func account(_ text: String) throws(OperationError) -> UUID {
        guard let account = UUID(uuidString: text) else { throw OperationError.invalid(field: "data.accountId", "must be an account id") }
        return account
    }

    /// `blocker` blocks `account`: not themselves, and within the hour's limit.
    static func block(_ account: UUID, by blocker: UUID, blocks: BlockStore, database: Database, on connection: PostgresConnection) async throws {
        guard account != blocker else { throw OperationError.invalid(field: "data.accountId", "is your own account") }
        try await database.hit(blocking, [.account(blocker.uuidString)], at: database.now(), on: connection)
        try await blocks.block(account, by: blocker, on: connection)
    }

    @Sendable
    func block(_ request: MarketplaceChat.Blocks.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Blocks.Outcome {
        let account = try Self.account(request.accountId)
        return try await database.transaction { connection in
            let caller = try await access.caller(context, recording: true, on: connection)
            try await Self.block(account, by: caller.account, blocks: blocks, database: database, on: connection)
            return .init(blocked: true)
        }
    }

    @Sendable
    func unblock(_ request: MarketplaceChat.Blocks.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Blocks.Outcome {
        let account = try Self.account(request.accountId)
        return try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            try await blocks.unblock(account, by: caller.account, on: connection)
            return .init(blocked: false)
        }
    }

    @Sendable
    func listBlocks(_ request: Empty, _ context: RequestContext) async throws -> MarketplaceChat.Blocks.List.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            return .init(blocked: try await blocks.blocked(by: caller.account, in: caller.network.university, on: connection))
        }
    }

    @Sendable
    func spots(_ request: MarketplaceChat.Spots.List.Request, _ context: RequestContext) async throws -> MarketplaceChat.Spots.List.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            if let campus = request.campus, try await !traders.hasCampus(campus, in: caller.network.university, on: connection) {
                throw OperationError.invalid(field: "data.campus", "is not one of your network's campuses")
            }
            return .init(spots: try await blocks.spots(of: caller.network.university, campus: request.campus, on: connection))
        }
    }
}
