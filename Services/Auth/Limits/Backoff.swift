import PostgresSupport

/// Temporary back-off instead of lockout: a key gets its free attempts, then each further counted
/// attempt blocks it for `first`, `2 × first`, `4 × first`, ... up to `max` (the kit's
/// `BackoffLimit`). The block always ends.
public struct Backoff: Sendable, Equatable {
    /// Attempts counted against an account (an email) from one client network before back-off starts.
    public var freePerAccount: Int
    /// Attempts counted against an account from all networks together before back-off starts for
    /// the networks it has not logged in from.
    public var freePerAccountAll: Int
    /// Attempts counted against one client IP (a campus NAT is many people) before back-off starts.
    public var freePerIP: Int
    public var first: Duration
    public var max: Duration
    /// A key whose last counted attempt is older than this starts from zero again.
    public var window: Duration

    /// The values come from the auth settings (`AUTH_ATTEMPTS_*`, `AUTH_BACKOFF_*`), whose
    /// declarations hold the defaults.
    public init(freePerAccount: Int, freePerAccountAll: Int, freePerIP: Int, first: Duration, max: Duration, window: Duration) {
        self.freePerAccount = freePerAccount
        self.freePerAccountAll = freePerAccountAll
        self.freePerIP = freePerIP
        self.first = first
        self.max = max
        self.window = window
    }

    /// The back-off of `action`'s attempts counted in `scope` (`login.account-network`).
    func limit(_ action: AttemptLimits.Action, _ scope: AttemptLimits.Scope) -> BackoffLimit {
        let free = switch scope {
        case .ip: freePerIP
        case .account: freePerAccountAll
        case .accountNetwork: freePerAccount
        }
        return BackoffLimit("\(action.rawValue).\(scope.rawValue)", free: free, first: first, max: max, window: window)
    }
}
