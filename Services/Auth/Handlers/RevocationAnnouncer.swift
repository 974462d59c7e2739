import AuthContract
import Bus
import Foundation
import PostgresSupport

/// Publishes each session end as the live event `auth.sessions.revoked.v1` once the transaction that
/// ended it commits: `SessionPostgresRepository.revoke` notifies the ids on a PostgreSQL channel,
/// heard here through the process's notice listener. A gateway that misses an event (it was
/// reconnecting, or this process stopped between commit and publish) catches up from
/// `auth.sessions.revoked.v1`.
enum RevocationAnnouncer {
    static func announce(from database: Database, on events: EventPublisher) {
        database.onNotice(SessionPostgresRepository.revokedChannel) { payload in
            guard let ended = parse(payload) else {
                database.logger.error("an unreadable session-revocation notice", metadata: ["bytes": "\(payload.utf8.count)"])
                return
            }
            events.publish(Auth.sessionsRevokedEvent, ended)
        }
    }

    /// The notice `revoke` sends: the expiry in Unix seconds, then the session ids, space-separated.
    static func parse(_ payload: String) -> Auth.RevokedSessions? {
        let words = payload.split(separator: " ")
        guard let first = words.first, let seconds = Int64(first), words.count > 1 else { return nil }
        let until = Date(timeIntervalSince1970: TimeInterval(seconds))
        return .init(sessions: words.dropFirst().map { .init(sid: String($0), until: until) })
    }
}
