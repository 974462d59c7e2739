@testable import AuthService
import Foundation
import Media
import PostgresNIO
import PostgresSupport
import ServiceKit
import Testing
import TestSupport

/// What housekeeping drops: registration attempts that expired (with their codes), ended sessions
/// whose access tokens have all expired, and security events and known networks past their
/// retention, nothing still in force; and a picture kept before the media store moves onto it.
@Suite(.timeLimit(.minutes(2))) struct HousekeepingTests {
    @Test func oldRegistrationsSessionsAndEventsGoWhileLiveOnesStay() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate(ServiceDefinition.auth.migrations())
            let account = UUID()
            try await database.transaction { connection in
                _ = try await connection.query(
                    """
                    INSERT INTO accounts (id, email, username, display_name, password_hash) VALUES (\(account), 'a@tcd.ie', 'a', 'A', 'x')
                    """, logger: database.logger)
                _ = try await connection.query(
                    """
                    INSERT INTO registrations (id, email, username, display_name, password_hash, expires_at) VALUES
                        (\(UUID()), 'b@tcd.ie', 'b', 'B', 'x', now() - interval '1 second'),
                        (\(UUID()), 'c@tcd.ie', 'c', 'C', 'x', now() + interval '1 hour')
                    """, logger: database.logger)
                let (expired, live) = (UUID(), UUID())
                _ = try await connection.query(
                    "INSERT INTO revoked_sessions VALUES (\(expired), now() - interval '1 second'), (\(live), now() + interval '10 minutes')",
                    logger: database.logger)
                _ = try await connection.query(
                    """
                    INSERT INTO known_networks (account_id, network, last_login_at) VALUES
                        (\(account), '192.0.2.1', now() - interval '200 days'), (\(account), '192.0.2.2', now() - interval '1 day')
                    """, logger: database.logger)
                _ = try await connection.query(
                    """
                    INSERT INTO security_events (account_id, kind, at) VALUES
                        (\(account), 'login', now() - interval '200 days'), (\(account), 'login_failed', now() - interval '1 day')
                    """, logger: database.logger)
                _ = try await connection.query(
                    """
                    INSERT INTO legacy_pictures (account_id, media_type, content, width, height)
                    VALUES (\(account), 'image/jpeg', \(Data(ImageSamples.jpeg40x30)), 40, 30)
                    """, logger: database.logger)
            }
            let housekeeping = AuthHousekeeping(
                limits: AttemptLimits(
                    database: database, backoff: Backoff(freePerAccount: 5, freePerAccountAll: 50, freePerIP: 50, first: .seconds(30), max: .seconds(900), window: .seconds(3600)), events: SecurityEventPostgresRepository(database: database)),
                events: SecurityEventPostgresRepository(database: database), registrations: RegistrationPostgresRepository(database: database),
                sessions: SessionPostgresRepository(database: database, keyEncryptionKey: .init(size: .bits256), lifetime: .seconds(60), accessTokenLifetime: .seconds(60)),
                pictures: PicturePostgresRepository(database: database, media: MediaLibrary(database: database)),
                retention: .seconds(180 * 86_400))
            for job in housekeeping.jobs(database: database) { #expect(await job.round() == 1, "\(job.name) drops one row") }
            let (kinds, left, revoked) = try await database.transaction { connection in
                let kinds = try await connection.query("SELECT kind FROM security_events", logger: database.logger)
                    .decode(String.self).reduce(into: [String]()) { $0.append($1) }
                let left = try await connection.query("SELECT email FROM registrations", logger: database.logger)
                    .decode(String.self).reduce(into: [String]()) { $0.append($1) }
                let revoked = try await connection.query("SELECT count(*) FROM revoked_sessions WHERE until > now()", logger: database.logger)
                    .decode(Int.self).reduce(0) { $0 + $1 }
                return (kinds, left, revoked)
            }
            let moved = try await database.transaction { connection in
                try await PicturePostgresRepository(database: database, media: MediaLibrary(database: database)).picture(of: account, on: connection)
            }
            #expect(moved?.full == .init(mediaType: "image/jpeg", width: 40, height: 30, size: moved?.full.size ?? 0), "a picture kept before the media store is re-encoded onto it")
            #expect(revoked == 1, "an ended session whose tokens may still be valid stays")
            #expect(left == ["c@tcd.ie"], "the attempt still in time stays")
            #expect(kinds == ["login_failed"])
        }
    }
}
