import AuthContract
import Contracts
import Crypto
import Foundation
import PostgresSupport
import ServiceKit
import ServiceSupport

/// What the auth service is configured with: read from its settings (`authConfiguration()`), whose
/// declarations hold the defaults; the rest are fixed rules of the service.
public struct AuthConfiguration: Sendable {
    /// Seals the token-signing keys at rest; from AUTH_KEY_ENCRYPTION_KEY (and
    /// AUTH_KEY_ENCRYPTION_KEY_PREVIOUS during a rotation).
    public var keys: KeyRing
    public var issuer: String
    public var audience: String
    /// At most 15 minutes.
    public var accessTokenLifetime: Duration
    public var refreshTokenLifetime: Duration
    /// A refresh token used again within this time after its first use is a concurrent refresh, not theft.
    public var refreshGrace: Duration
    /// A session ends this long after its login however often it is refreshed.
    public var sessionLifetime: Duration
    /// A signing key signs for this long; then a new one takes over.
    public var keyRotation: Duration
    /// How long an instance uses the signing keys it read before reading them again.
    public var keyCacheLifetime: Duration
    /// Verification codes are valid this long.
    public var codeLifetime: Duration
    /// The least time between two codes mailed to one account.
    public var codeResendInterval: Duration
    /// The rate limits of login, codes, code mail and refresh.
    public var backoff: Backoff
    /// The largest profile picture file.
    public var pictureMaxBytes: Int
    /// A registration attempt (its credentials, and its hold on the username) lasts this long
    /// unless its code is entered: codes can be asked for again within it.
    public var registrationLifetime: Duration = .seconds(3600)
    /// Wrong guesses a code survives.
    public var codeAttempts = 5
    /// Security events older than this are dropped.
    public var securityEventRetention: Duration = .seconds(180 * 86_400)
}

extension Setting {
    public static let authKeyEncryptionKey = Setting(
        "auth.key.encryption.key", default: nil,
        help: "32 random bytes in base64 (openssl rand -base64 32): seals the token-signing keys in the database.", isSecret: true,
        provision: .required(.randomKey))
    public static let authAccessTokenLifetime = Setting(
        "auth.access.token.lifetime", default: "900000", help: "Milliseconds an access token is valid (at most 15 minutes).", kind: .milliseconds(1_000...900_000))
    public static let authRefreshTokenLifetime = Setting(
        "auth.refresh.token.lifetime", default: "2592000000", help: "Milliseconds a refresh token is valid (30 days).", kind: .milliseconds(1_000...(365 * 86_400_000)))
    public static let authCodeLifetime = Setting(
        "auth.code.lifetime", default: "600000", help: "Milliseconds a mailed code (verification, password reset) is valid (10 minutes).",
        kind: .milliseconds(1_000...86_400_000))
    public static let authCodeResendInterval = Setting(
        "auth.code.resend.interval", default: "60000", help: "The least milliseconds between two codes mailed for one registration or account.",
        kind: .milliseconds(0...3_600_000))
    public static let authRefreshGrace = Setting(
        "auth.refresh.grace", default: "10000", help: "Milliseconds in which a second use of a refresh token counts as a concurrent refresh.", kind: .milliseconds(0...60_000))
    public static let authSessionLifetime = Setting(
        "auth.session.lifetime", default: "7776000000", help: "Milliseconds after a login when its session ends, however often refreshed (90 days); log in again then.",
        kind: .milliseconds(1_000...(3_650 * 86_400_000)))
    public static let authKeyRotation = Setting(
        "auth.key.rotation", default: "2592000000", help: "Milliseconds a signing key signs before a new one takes over (30 days).", kind: .milliseconds(60_000...(365 * 86_400_000)))
    public static let authKeyCache = Setting(
        "auth.key.cache", default: "60000",
        help: "Milliseconds an instance uses the signing keys it read before reading them again; a retired key stays published this much longer.",
        kind: .milliseconds(100...600_000))

    public static let authAttemptsPerAccount = Setting(
        "auth.attempts.per.account", default: "5",
        help: "Failed logins, wrong codes, refused refreshes or code mails an email may have from one client network before back-off starts there.",
        kind: .integer(1...1_000))
    public static let authAttemptsPerAccountAll = Setting(
        "auth.attempts.per.account.all", default: "50",
        help: "The same from all networks together; past it, networks the account has not logged in from wait too.", kind: .integer(1...100_000))
    public static let authAttemptsPerIP = Setting(
        "auth.attempts.per.ip", default: "50", help: "The same per client IP (IPv6: per /64); campus networks share addresses.", kind: .integer(1...100_000))
    public static let authBackoffFirst = Setting(
        "auth.backoff.first", default: "30000", help: "Milliseconds of the first block past the free attempts; each further attempt doubles it.", kind: .milliseconds(100...3_600_000))
    public static let authBackoffMax = Setting("auth.backoff.max", default: "900000", help: "Milliseconds of the longest block.", kind: .milliseconds(100...86_400_000))
    public static let authAttemptsWindow = Setting(
        "auth.attempts.window", default: "3600000", help: "Milliseconds after the last counted attempt when a counter starts again.", kind: .milliseconds(1_000...7 * 86_400_000))
    public static let authPictureMaxBytes = Setting(
        "auth.picture.max.bytes", default: "5242880", help: "Largest profile picture upload in bytes.", kind: .integer(1_024...ImageType.maxUploadBytes))

    public static let authKeyEncryptionKeyPrevious = Setting.previousKeys(of: .authKeyEncryptionKey)

    public static let authSettings: [Setting] = [
        .authKeyEncryptionKey, .authKeyEncryptionKeyPrevious, .authIssuer, .authAudience,
        .authAccessTokenLifetime, .authRefreshTokenLifetime, .authCodeLifetime, .authCodeResendInterval, .authRefreshGrace, .authSessionLifetime, .authKeyRotation,
        .authKeyCache,
        .authAttemptsPerAccount, .authAttemptsPerAccountAll, .authAttemptsPerIP, .authBackoffFirst, .authBackoffMax, .authAttemptsWindow,
        .authPictureMaxBytes,
    ]
}

extension ProcessSettings {
    public func authConfiguration() throws -> AuthConfiguration {
        let configuration = AuthConfiguration(
            keys: try keyRing(current: .authKeyEncryptionKey, previous: .authKeyEncryptionKeyPrevious), issuer: try requiredString(.authIssuer), audience: try requiredString(.authAudience),
            accessTokenLifetime: try milliseconds(.authAccessTokenLifetime), refreshTokenLifetime: try milliseconds(.authRefreshTokenLifetime),
            refreshGrace: try milliseconds(.authRefreshGrace), sessionLifetime: try milliseconds(.authSessionLifetime),
            keyRotation: try milliseconds(.authKeyRotation), keyCacheLifetime: try milliseconds(.authKeyCache),
            codeLifetime: try milliseconds(.authCodeLifetime), codeResendInterval: try milliseconds(.authCodeResendInterval),
            backoff: Backoff(
                freePerAccount: try int(.authAttemptsPerAccount), freePerAccountAll: try int(.authAttemptsPerAccountAll), freePerIP: try int(.authAttemptsPerIP),
                first: try milliseconds(.authBackoffFirst), max: try milliseconds(.authBackoffMax), window: try milliseconds(.authAttemptsWindow)),
            pictureMaxBytes: try int(.authPictureMaxBytes))
        guard configuration.backoff.first <= configuration.backoff.max else {
            throw InvalidValue(setting: .authBackoffMax, value: "\(configuration.backoff.max.milliseconds)", expected: "at least AUTH_BACKOFF_FIRST")
        }
        return configuration
    }
}
