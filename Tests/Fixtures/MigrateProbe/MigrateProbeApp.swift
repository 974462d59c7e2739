import Foundation
import Logging
import PostgresSupport

/// `migrate-probe DATABASE_URL SCHEMA FOLDER`: applies FOLDER's migrations to SCHEMA and prints the
/// versions this process applied, comma-separated. A test fixture for concurrent start-up.
@main
struct MigrateProbeApp {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 4 else {
            FileHandle.standardError.write(Data("usage: migrate-probe DATABASE_URL SCHEMA FOLDER\n".utf8))
            exit(64)
        }
        var logger = Logger(label: "migrate-probe")
        logger.logLevel = .warning
        let database = try Database(url: DatabaseURL(arguments[1]), schema: arguments[2], maximumConnections: 2, logger: logger)
        let migrations = try Migration.load(from: URL(fileURLWithPath: arguments[3]))
        let applied = try await withThrowingTaskGroup(of: [Int]?.self) { group in
            group.addTask {
                try await database.run()
                return nil
            }
            group.addTask { try await database.migrate(migrations) }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let applied = result { return applied }
            }
            return []
        }
        print(applied.map(String.init).joined(separator: ","))
    }
}
