import Foundation
import PostgresSupport
import ServiceSupport

/// What the household service is configured with: read from its settings
/// (`householdConfiguration()`), whose declarations hold the defaults.
public struct HouseholdConfiguration: Sendable {
    /// The most members a household has at once.
    public var maxMembers: Int
    /// The most households one account belongs to at once.
    public var householdsPerAccount: Int
    /// How long an invite code lets people join.
    public var inviteLifetime: Duration
    /// Wrong invite codes, per client network and per account, before each further one waits longer.
    public var joinBackoff: (network: BackoffLimit, account: BackoffLimit)
    /// The most invite codes valid at once per household.
    public static let validInvites = 20
}

extension Setting {
    public static let householdMaxMembers = Setting(
        "household.members.max", default: "50", help: "The most members a household has at once.", kind: .integer(2...500))
    public static let householdPerAccount = Setting(
        "household.per.account", default: "20", help: "The most households one account belongs to at once.", kind: .integer(1...200))
    public static let householdInviteLifetime = Setting(
        "household.invite.lifetime", default: "604800000", help: "Milliseconds an invite code lets people join (7 days).",
        kind: .milliseconds(60_000...(30 * 86_400_000)))
    public static let householdJoinAttempts = Setting(
        "household.join.attempts", default: "10",
        help: "Wrong invite codes one client network, or one account, may try before each further one waits longer (30 s, doubling up to 15 min; an hour's quiet forgives).",
        kind: .integer(1...10_000))

    public static let householdSettings: [Setting] = [.householdMaxMembers, .householdPerAccount, .householdInviteLifetime, .householdJoinAttempts]
}

extension ProcessSettings {
    public func householdConfiguration() throws -> HouseholdConfiguration {
        let free = try int(.householdJoinAttempts)
        func backoff(_ scope: String) -> BackoffLimit {
            BackoffLimit("household.join.\(scope)", free: free, first: .seconds(30), max: .seconds(900), window: .seconds(3600))
        }
        return HouseholdConfiguration(
            maxMembers: try int(.householdMaxMembers), householdsPerAccount: try int(.householdPerAccount),
            inviteLifetime: try milliseconds(.householdInviteLifetime), joinBackoff: (backoff("network"), backoff("account")))
    }
}
