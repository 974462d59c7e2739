import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import PostgresNIO

/// Who may use the marketplace: a signed-in account of a university network the marketplace
/// serves, in a session of the marketplace app, that signed the marketplace rules. Each sees its
/// own network only. A suspended account may not, until its suspension ends.
struct MarketAccess: Sendable {
    let traders: TraderStore
    let moderation: ModerationStore

    /// The caller as a trader: their account and network.
    struct Caller: Sendable {
        let account: UUID
        let network: TraderStore.Network
    }

    static let notUniversity = OperationError(
        .forbidden, "the marketplace is for members of a university network: sign up with your university email address")
    static let notRules = OperationError(
        .forbidden, "sign the marketplace rules first (PUT /v1/me/agreements/\(MarketplaceChat.rulesPolicy)), then refresh the session")
    static let notApp = OperationError(.forbidden, "the marketplace is used from the marketplace app")

    /// The caller, or `forbidden` saying what they lack. `recording` (any change they make) keeps
    /// their username as the token gives it, so others see them by it.
    func caller(_ context: RequestContext, recording: Bool = false, on connection: PostgresConnection) async throws -> Caller {
        let attributes = context.attributes
        let account = try attributes.signedInAccount(for: "the marketplace's routes")
        guard attributes.app == ClientApp.marketplace.rawValue else { throw Self.notApp }
        guard let university = attributes.university, let network = try await traders.network(university, on: connection) else {
            throw Self.notUniversity
        }
        guard attributes.agreements.contains(MarketplaceChat.rulesPolicy) else { throw Self.notRules }
        if let suspension = try await moderation.suspension(of: account, on: connection) {
            let until = suspension.until.map { "until \(RFC3339.string(from: $0))" } ?? "until a moderator lifts it"
            throw OperationError(
                .forbidden, "your use of the marketplace is suspended \(until): GET /v1/marketplace/standing says why, POST /v1/marketplace/appeals appeals it")
        }
        if recording { try await traders.record(account, network: network.university, username: attributes.username ?? "member", on: connection) }
        return Caller(account: account, network: network)
    }
}
