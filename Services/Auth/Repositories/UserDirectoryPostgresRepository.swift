import AuthContract
import Contracts
import Foundation
import PostgresNIO
import PostgresSupport

/// What members see of one another (public profiles, member search) and the university networks.
/// Every method runs on the caller's connection, inside the caller's transaction.
struct UserDirectoryPostgresRepository: Sendable {
    let database: Database

    /// The tables `publicColumns` come from: an account (`a`) with its university, main campus and picture.
    static let publicTables = """
        accounts a LEFT JOIN universities u ON u.id = a.university_id LEFT JOIN campuses c ON c.university_id = u.id AND c.main
            LEFT JOIN pictures p ON p.account_id = a.id LEFT JOIN media_objects m ON m.id = p.media_id
        """
    /// The columns `publicProfile(_:from:)` reads, in its order.
    static let publicColumns = """
        a.id, a.username, a.display_name, a.created_at, u.id, u.name, c.name,
            m.media_type, m.width, m.height, m.size, p.updated_at
        """

    /// The public profile in `row`'s `publicColumns`, which start at column `first`, and when its
    /// account was made.
    static func publicProfile(_ row: PostgresRow, from first: Int) throws -> (profile: Auth.PublicProfile, created: Date) {
        let cells = row.makeRandomAccess()
        func cell<T: PostgresDecodable>(_ index: Int, _: T.Type) throws -> T { try cells[first + index].decode(T.self) }
        let account = try cell(0, UUID.self), created = try cell(3, Date.self)
        let university = try cell(4, String?.self).map { id in
            Auth.University(id: id, name: try cell(5, String.self), campus: try cell(6, String?.self) ?? "")
        }
        let picture = try cell(7, String?.self).map { mediaType in
            Auth.PictureInfo(
                mediaType: mediaType, width: try cell(8, Int.self), height: try cell(9, Int.self), size: try cell(10, Int.self),
                updatedAt: try cell(11, Date.self))
        } ?? DefaultPicture.info(since: created)
        let day = Date(timeIntervalSince1970: (created.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
        let profile = Auth.PublicProfile(
            id: account.uuidString.lowercased(), username: try cell(1, String.self), displayName: try cell(2, String.self),
            university: university, picture: picture, joinedOn: day)
        return (profile, created)
    }

    /// `account`'s public profile, nil when there is no such account.
    func profile(of account: UUID, on connection: PostgresConnection) async throws -> Auth.PublicProfile? {
        for try await row in try await connection.execute(PublicProfileOf(account: account), logger: database.logger) {
            return try Self.publicProfile(row, from: 0).profile
        }
        return nil
    }

    /// Read on every profile shown: a four-table join whose plan cost more than its run.
    private struct PublicProfileOf: PreparedRows {
        static let name = "auth_public_profile_of"
        static let sql = "SELECT \(publicColumns) FROM \(publicTables) WHERE a.id = $1"
        let account: UUID
        func makeBindings() throws -> PostgresBindings { try .values(account) }
    }

    /// Up to `limit` members, by username after `after`, whose username or a word of whose display
    /// name begins with `prefix` (lowercase; LIKE's wildcards in it match themselves alone).
    func search(_ prefix: String, university: String?, after: String?, limit: Int,
                on connection: PostgresConnection) async throws -> [Auth.PublicProfile] {
        let pattern = Self.literal(prefix) + "%"
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.publicColumns) FROM \(unescaped: Self.publicTables)
            WHERE (a.username LIKE \(pattern) OR lower(a.display_name) LIKE \(pattern) OR lower(a.display_name) LIKE '% ' || \(pattern))
              AND (\(university)::text IS NULL OR a.university_id = \(university))
              AND (\(after)::text IS NULL OR a.username > \(after))
            ORDER BY a.username LIMIT \(limit)
            """,
            logger: database.logger)
        var found: [Auth.PublicProfile] = []
        for try await row in rows { found.append(try Self.publicProfile(row, from: 0).profile) }
        return found
    }

    /// `text` with LIKE's wildcards and escape character escaped, to match itself alone.
    static func literal(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("%", with: "\\%").replacing("_", with: "\\_")
    }

    /// Every university network with its domains and campuses (main first), by name.
    func universities(on connection: PostgresConnection) async throws -> [Auth.UniversityNetwork] {
        let rows = try await connection.query(
            """
            SELECT u.id, u.name, u.domains, c.id, c.name, c.main
            FROM universities u LEFT JOIN campuses c ON c.university_id = u.id
            ORDER BY u.name, u.id, c.main DESC, c.name
            """,
            logger: database.logger)
        var networks: [Auth.UniversityNetwork] = []
        for try await (id, name, domains, campus, campusName, main) in rows.decode((String, String, [String], String?, String?, Bool?).self) {
            if networks.last?.id != id { networks.append(.init(id: id, name: name, domains: domains, campuses: [])) }
            if let campus, let campusName { networks[networks.count - 1].campuses.append(.init(id: campus, name: campusName, main: main ?? false)) }
        }
        return networks
    }
}
