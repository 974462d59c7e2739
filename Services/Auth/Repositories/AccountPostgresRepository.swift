import AuthContract
import Contracts
import Crypto
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// Accounts, universities and mailed codes in the auth schema. Every method runs on the caller's
/// connection, inside the caller's transaction.
struct AccountPostgresRepository: Sendable {
    let database: Database

    struct Account: Sendable, CodeRecipient {
        let id: UUID
        let displayName: String
        let passwordHash: String
        let universityID: String?
        let roles: [String]
        /// Seconds since the newest password-reset code was made, nil when none was.
        let lastCodeAge: Double?
    }

    /// The accounts column an attempts key matches: an account id, or the email otherwise.
    static func column(naming key: String) -> String {
        UUID(uuidString: key) == nil ? "email" : "id::text"
    }

    /// The account of `email`.
    func account(email: String, on connection: PostgresConnection, lock: Bool = false) async throws -> Account? {
        let rows = try await connection.query(
            """
            SELECT a.id, a.display_name, a.password_hash, a.university_id, a.roles,
                (SELECT extract(epoch FROM \(database.now()) - max(c.created_at))::float8 FROM email_codes c
                 WHERE c.account_id = a.id AND c.purpose = 'reset-password')
            FROM accounts a WHERE a.email = \(email) \(unescaped: lock ? "FOR UPDATE OF a" : "")
            """,
            logger: database.logger)
        for try await (id, name, hash, university, roles, age) in rows.decode((UUID, String, String, String?, [String], Double?).self) {
            return Account(id: id, displayName: name, passwordHash: hash, universityID: university, roles: roles, lastCodeAge: age)
        }
        return nil
    }

    /// What an access token says about an account.
    struct TokenFacts: Sendable {
        let university: String?
        let roles: [String]
        let username: String
        /// The policies whose current version it signed and has not withdrawn.
        let agreements: [String]
    }

    /// What an access token says about an account: its university, roles, username and signed policies.
    func tokenFacts(of account: UUID, on connection: PostgresConnection) async throws -> TokenFacts? {
        let rows = try await connection.query(
            """
            SELECT a.university_id, a.roles, a.username, ARRAY(
                SELECT c.id FROM (
                    SELECT DISTINCT ON (id) id, version FROM policies WHERE effective_at <= \(database.now()) ORDER BY id, version DESC) c
                JOIN agreements g ON g.account_id = a.id AND g.policy_id = c.id AND g.version = c.version AND g.withdrawn_at IS NULL
                ORDER BY c.id)
            FROM accounts a WHERE a.id = \(account)
            """,
            logger: database.logger)
        for try await (university, roles, username, agreements) in rows.decode((String?, [String], String, [String]).self) {
            return TokenFacts(university: university, roles: roles, username: username, agreements: agreements)
        }
        return nil
    }

    /// The university whose email domains include `domain` or a parent of it.
    func university(forDomain domain: String, on connection: PostgresConnection) async throws -> Auth.University? {
        let rows = try await connection.query(
            """
            SELECT u.id, u.name, coalesce(c.name, '') FROM universities u LEFT JOIN campuses c ON c.university_id = u.id AND c.main
            WHERE EXISTS (SELECT 1 FROM unnest(u.domains) AS d WHERE \(domain) = d OR right(\(domain), length(d) + 1) = '.' || d)
            ORDER BY u.id LIMIT 1
            """,
            logger: database.logger)
        for try await (id, name, campus) in rows.decode((String, String, String).self) {
            return Auth.University(id: id, name: name, campus: campus)
        }
        return nil
    }

    /// Makes the account of a registration attempt whose code was entered. A username or address
    /// another request claimed first is `conflict` naming the field, not the database's error.
    func create(from attempt: RegistrationPostgresRepository.Attempt, on connection: PostgresConnection) async throws -> UUID {
        let id = UUID()
        do {
            try await connection.query(
                """
                INSERT INTO accounts (id, email, username, display_name, first_name, last_name, password_hash, university_id)
                VALUES (\(id), \(attempt.email), \(attempt.username), \(attempt.displayName), \(attempt.firstName), \(attempt.lastName),
                        \(attempt.passwordHash), \(attempt.universityID))
                """,
                logger: database.logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            switch error.serverInfo?[.constraintName] {
            case "accounts_username_key": throw AccountRules.usernameTaken
            default: throw OperationError(.conflict, "data.email: this address has just been verified by another request",
                                          fields: [.init(field: "data.email", message: "has just been verified by another request")])
            }
        }
        return id
    }

    /// Whom a mailed code belongs to: an account (password reset) or a registration attempt.
    enum CodeOwner: Sendable {
        case account(UUID), registration(UUID)

        var account: UUID? { if case .account(let id) = self { id } else { nil } }
        var registration: UUID? { if case .registration(let id) = self { id } else { nil } }
    }

    /// A new code for `purpose`, replacing the owner's unused ones; returns it in the clear (for the mail).
    func newCode(for owner: CodeOwner, purpose: String, lifetime: Duration, on connection: PostgresConnection) async throws -> (id: UUID, code: String) {
        var generator = SystemRandomNumberGenerator()
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000, using: &generator))
        let id = UUID()
        try await connection.query(
            """
            UPDATE email_codes SET used_at = \(database.now())
            WHERE (account_id = \(owner.account) OR registration_id = \(owner.registration)) AND purpose = \(purpose) AND used_at IS NULL
            """,
            logger: database.logger)
        try await connection.query(
            """
            INSERT INTO email_codes (id, account_id, registration_id, purpose, code_hash, created_at, expires_at)
            VALUES (\(id), \(owner.account), \(owner.registration), \(purpose), \(Self.hash(code, id: id)), \(database.now()), \(database.now()) + make_interval(secs => \(Double(lifetime.milliseconds) / 1000)))
            """,
            logger: database.logger)
        return (id, code)
    }

    struct LiveCode: Sendable {
        let id: UUID
        let hash: Data
        let attempts: Int
        let expired: Bool
    }

    /// The owner's newest unused code for `purpose`, locked.
    func liveCode(for owner: CodeOwner, purpose: String, on connection: PostgresConnection) async throws -> LiveCode? {
        let rows = try await connection.query(
            """
            SELECT id, code_hash, attempts, expires_at <= \(database.now()) FROM email_codes
            WHERE (account_id = \(owner.account) OR registration_id = \(owner.registration)) AND purpose = \(purpose) AND used_at IS NULL
            ORDER BY created_at DESC LIMIT 1 FOR UPDATE
            """,
            logger: database.logger)
        for try await (id, hash, attempts, expired) in rows.decode((UUID, Data, Int, Bool).self) {
            return LiveCode(id: id, hash: hash, attempts: attempts, expired: expired)
        }
        return nil
    }

    func countFailedAttempt(_ code: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE email_codes SET attempts = attempts + 1 WHERE id = \(code)", logger: database.logger)
    }

    func markUsed(code: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE email_codes SET used_at = \(database.now()) WHERE id = \(code)", logger: database.logger)
    }

    /// The signed-in account's profile, nil when it no longer exists.
    func profile(of account: UUID, on connection: PostgresConnection) async throws -> Auth.Profile? {
        for try await row in try await connection.execute(ProfileOf(account: account), logger: database.logger) {
            let (email, first, last) = try row.decode((String, String?, String?).self)
            let (shown, created) = try UserDirectoryPostgresRepository.publicProfile(row, from: 3)
            return Auth.Profile(
                id: shown.id, email: email, username: shown.username, displayName: shown.displayName, firstName: first, lastName: last,
                university: shown.university, picture: shown.picture, createdAt: created)
        }
        return nil
    }

    /// Read on every `GET /v1/me`: the public profile's join, whose plan cost more than its run.
    private struct ProfileOf: PreparedRows {
        static let name = "auth_profile_of"
        static let sql = """
            SELECT a.email, a.first_name, a.last_name, \(UserDirectoryPostgresRepository.publicColumns)
            FROM \(UserDirectoryPostgresRepository.publicTables) WHERE a.id = $1
            """
        let account: UUID
        func makeBindings() throws -> PostgresBindings { try .values(account) }
    }

    /// Sets what is given; an empty first or last name removes it.
    func update(_ account: UUID, _ change: Auth.Me.Update.Request, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE accounts SET display_name = coalesce(\(change.displayName), display_name), username = coalesce(\(change.username), username),
                first_name = CASE WHEN \(change.firstName)::text IS NULL THEN first_name ELSE nullif(\(change.firstName), '') END,
                last_name = CASE WHEN \(change.lastName)::text IS NULL THEN last_name ELSE nullif(\(change.lastName), '') END
            WHERE id = \(account)
            """,
            logger: database.logger)
    }

    func passwordHash(of account: UUID, on connection: PostgresConnection) async throws -> String? {
        let rows = try await connection.query("SELECT password_hash FROM accounts WHERE id = \(account)", logger: database.logger)
        for try await hash in rows.decode(String.self) { return hash }
        return nil
    }

    /// Deletes the account; its sessions, tokens, codes and images go with it.
    func delete(_ account: UUID, on connection: PostgresConnection) async throws {
        try await database.forgetMedia(of: account, on: connection)
        try await connection.query("DELETE FROM accounts WHERE id = \(account)", logger: database.logger)
    }

    func updatePasswordHash(_ account: UUID, to hash: String, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE accounts SET password_hash = \(hash) WHERE id = \(account)", logger: database.logger)
    }

    /// SHA-256 of the code with its row id: a stored code is useless without the mail.
    static func hash(_ code: String, id: UUID) -> Data {
        Data(SHA256.hash(data: Data("\(id.uuidString.lowercased()):\(code)".utf8)))
    }
}

/// Whoever is mailed codes (an account, a registration attempt), at most one an interval.
protocol CodeRecipient {
    /// Seconds since the newest code was made, nil when none was.
    var lastCodeAge: Double? { get }
}

extension CodeRecipient {
    /// Whether a new code may be mailed: none yet, or the last one `interval` ago or more.
    func mayGetCode(every interval: Duration) -> Bool {
        (lastCodeAge ?? .infinity) >= Double(interval.milliseconds) / 1000
    }
}
