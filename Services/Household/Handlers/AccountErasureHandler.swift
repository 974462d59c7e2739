import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import Media
import PostgresNIO
import PostgresSupport

/// `household.account.erase.v1`: a deleted account's memberships lose the account, so the others
/// keep a whole history with "a former member" in it; what it wrote and uploaded (posts, comments,
/// pictures, its own grocery lists and what it wanted in finished shopping trips) goes. A household
/// it owned passes to the member who has belonged longest; one it was the last member of is deleted
/// with everything in it.
struct AccountErasureHandler: Sendable {
    let database: Database
    let households: HouseholdStore

    @Sendable
    func erase(_ request: AccountErasure, _ context: RequestContext) async throws -> Household.Account.Erase.Response {
        guard let account = UUID(uuidString: request.account) else {
            throw OperationError(.invalid, "data.account: not an account id", fields: [.init(field: "data.account", message: "must be a UUID")])
        }
        return try await database.transaction { connection in
            var deleted = 0
            let owned = try await connection.query(
                "SELECT household_id FROM members WHERE account_id = \(account) AND left_at IS NULL AND role = 'owner' ORDER BY household_id",
                logger: database.logger
            ).decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
            for household in owned {
                try await connection.query("SELECT 1 FROM households WHERE id = \(household) FOR UPDATE", logger: database.logger)
                let successor = try await connection.query(
                    """
                    SELECT id FROM members WHERE household_id = \(household) AND left_at IS NULL AND account_id IS DISTINCT FROM \(account)
                    ORDER BY seq LIMIT 1
                    """,
                    logger: database.logger
                ).decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }.first
                if let successor {
                    try await connection.query(
                        "UPDATE members SET role = 'member' WHERE household_id = \(household) AND account_id = \(account)", logger: database.logger)
                    try await connection.query("UPDATE members SET role = 'owner' WHERE id = \(successor)", logger: database.logger)
                } else {
                    try await households.delete(household, on: connection)
                    deleted += 1
                }
            }
            // What it wrote goes: its posts (with their photos), its comments on posts and chores.
            let mine = try await connection.query("SELECT id FROM members WHERE account_id = \(account)", logger: database.logger)
                .decode(UUID.self).reduce(into: [UUID]()) { $0.append($1) }
            let board = BoardStore(database: database, photos: PhotoStore(database: database, media: MediaLibrary(database: database)))
            for post in try await connection.query("SELECT id FROM posts WHERE author = ANY(\(mine))", logger: database.logger)
                .decode(UUID.self).reduce(into: [UUID](), { $0.append($1) }) {
                _ = try await board.delete(post, on: connection)
            }
            try await connection.query("DELETE FROM post_comments WHERE member_id = ANY(\(mine))", logger: database.logger)
            try await connection.query("DELETE FROM chore_comments WHERE member_id = ANY(\(mine))", logger: database.logger)
            // The pictures it uploaded go, as the kit's media store erases an uploader's images.
            try await database.forgetMedia(of: account, on: connection)
            // What an account wished for on its own lists is its own: those lists go; bought items of
            // the communal lists stay, with "a former member" as their buyer.
            try await connection.query(
                "DELETE FROM grocery_lists WHERE owner_member IN (SELECT id FROM members WHERE account_id = \(account))", logger: database.logger)
            // So do its wishes kept in finished shopping trips; what it bought or added there stays, by its member id.
            try await ShoppingTripStore(database: database).forgetWishes(of: mine, on: connection)
            let anonymised = try await connection.query(
                """
                UPDATE members SET account_id = NULL, role = 'member', left_at = coalesce(left_at, \(database.now()))
                WHERE account_id = \(account) RETURNING 1
                """,
                logger: database.logger
            ).collect().count
            return .init(membershipsAnonymised: anonymised, householdsDeleted: deleted)
        }
    }
}
