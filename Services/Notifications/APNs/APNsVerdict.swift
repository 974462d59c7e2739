import Foundation

/// What one APNs reply means for the push, the device and the app, as Apple's table of status
/// codes and reasons says (Sending notification requests to APNs, "Handle an error response").
public enum APNsVerdict: Sendable, Equatable {
    /// 200: APNs has it.
    case accepted
    /// 410 `Unregistered` / `ExpiredToken`: the token is gone since `since` (Apple's timestamp);
    /// the device is removed unless it registered again after that.
    case tokenGone(reason: String, since: Date?)
    /// 400 `BadDeviceToken` / `DeviceTokenNotForTopic`: no retry; the device is removed only when
    /// its registered environment is the host's (a wrong host setting must not remove every device).
    case tokenRejected(reason: String)
    /// 403 `ExpiredProviderToken`: renew the JWT (once) and try again.
    case renewProviderToken
    /// Our APNs setup is wrong (key, team, topic, environment): hold this app's pushes and alert.
    case setupError(reason: String)
    /// 429 `TooManyProviderTokenUpdates`: our bug (renewing too often): log it and wait, never loop.
    case tooManyTokenUpdates
    /// 429 `TooManyRequests`, 5xx, a lost connection or GOAWAY: back off, retry on a fresh connection.
    case retry(reason: String)
    /// Every other refusal: the push to this device ends as failed with the reason.
    case failed(reason: String)

    /// The verdict for a status and the reply body's `reason` (and `timestamp`, milliseconds since 1970).
    public static func of(status: Int, reason: String?, timestamp: Int64?) -> APNsVerdict {
        let reason = reason ?? "HTTP \(status)"
        switch (status, reason) {
        case (200, _):
            return .accepted
        case (410, _):
            return .tokenGone(reason: reason, since: timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) })
        case (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            return .tokenRejected(reason: reason)
        case (403, "ExpiredProviderToken"):
            return .renewProviderToken
        case (400, "TopicDisallowed"), (400, "BadTopic"), (400, "MissingTopic"), (403, "InvalidProviderToken"),
             (403, "BadEnvironmentKeyInToken"), (403, "MissingProviderToken"), (403, "BadCertificate"), (403, "BadCertificateEnvironment"),
             (403, "Forbidden"), (403, "UnrelatedKeyIdInToken"):
            return .setupError(reason: reason)
        case (429, "TooManyProviderTokenUpdates"):
            return .tooManyTokenUpdates
        case (429, _), (500...599, _):
            return .retry(reason: reason)
        default:
            return .failed(reason: reason)
        }
    }
}
