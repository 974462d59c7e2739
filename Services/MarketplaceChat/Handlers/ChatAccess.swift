import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO

/// Who may chat, and in which conversations: the marketplace app's traders (as `MarketAccess` says)
/// in conversations about their network's listings; anyone signed in to Nebula in private ones. Each
/// app sees its own kind of conversation only.
struct ChatAccess: Sendable {
    let market: MarketAccess
    let conversations: ConversationStore

    struct Caller: Sendable {
        let account: UUID
        let kind: MarketplaceChat.ConversationKind
        /// The network of a marketplace trader; nil in Nebula.
        let university: String?
    }

    static let notApp = OperationError(.forbidden, "the chat is used from the marketplace app (about listings) or from Nebula (private chats)")

    /// The caller, or `forbidden` saying what they lack. `recording` (they change something) keeps
    /// their username as the token gives it, which the other side sees.
    func caller(_ context: RequestContext, recording: Bool = false, on connection: PostgresConnection) async throws -> Caller {
        let attributes = context.attributes
        let caller: Caller
        switch attributes.app {
        case ClientApp.marketplace.rawValue?:
            let trader = try await market.caller(context, recording: recording, on: connection)
            caller = Caller(account: trader.account, kind: .listing, university: trader.network.university)
        case ClientApp.nebula.rawValue?:
            caller = Caller(account: try attributes.signedInAccount(for: "chats"), kind: .private, university: nil)
        default:
            _ = try attributes.signedInAccount(for: "chats")
            throw Self.notApp
        }
        if recording { try await conversations.recordChatter(caller.account, username: attributes.username ?? "member", on: connection) }
        return caller
    }
}
