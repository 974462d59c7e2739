import Foundation
import Logging
import PostgresNIO

/// One versioned SQL migration, from a file named `<version>_<name>.sql` (`0001_create_chores.sql`).
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Every `NNNN_name.sql` file in `directory`, by version; two files with one version are an error.
    public static func load(from directory: URL) throws -> [Migration] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }
        var migrations: [Migration] = []
        for file in files {
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]), version > 0 else {
                throw DatabaseURL.Invalid(description: "migration file \(file) is not named NNNN_name.sql")
            }
            let sql = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            migrations.append(Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (a, b) in zip(migrations, migrations.dropFirst()) where a.version == b.version {
            throw DatabaseURL.Invalid(description: "two migrations have version \(a.version): \(a.name) and \(b.name)")
        }
        return migrations
    }
}

extension Database {
    /// Creates the schema and Melon's own tables (schema_migrations, idempotency_records, outbox), then applies the migrations not yet applied, each
    /// once, in order. The whole run holds a transaction-scoped advisory lock on the schema, so any
    /// number of instances starting together apply each migration exactly once. Returns the versions
    /// this call applied.
    @discardableResult
    public func migrate(_ migrations: [Migration]) async throws -> [Int] {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\("melon.migrate." + schema)))", logger: logger)
            // A service with a role of its own (deploy/service-role.sh) owns its schema but may not
            // create schemas, which even CREATE SCHEMA IF NOT EXISTS asks: create it only when missing.
            let exists = try await connection.query("SELECT 1 FROM pg_namespace WHERE nspname = \(schema)", logger: logger)
                .collect().isEmpty == false
            if !exists { try await run(script: "CREATE SCHEMA \(schema);", on: connection) }
            try await run(script: """
                SET LOCAL search_path TO \(schema);
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                );
                DROP TABLE IF EXISTS idempotency_keys;
                CREATE TABLE IF NOT EXISTS idempotency_records (
                    operation text NOT NULL,
                    caller text NOT NULL,
                    key text NOT NULL,
                    fingerprint bytea NOT NULL,
                    reply bytea,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (operation, caller, key)
                );
                CREATE INDEX IF NOT EXISTS idempotency_records_age ON idempotency_records (created_at);
                CREATE INDEX IF NOT EXISTS idempotency_records_caller ON idempotency_records (caller) WHERE caller <> '';
                -- Keys kept as a hash, replies sealed (IdempotencyRecord): rows from before keep their
                -- plain reply until they expire, found by the same hash.
                ALTER TABLE idempotency_records ADD COLUMN IF NOT EXISTS sealed boolean;
                UPDATE idempotency_records SET sealed = false,
                    key = encode(sha256(convert_to(operation || chr(10) || caller || chr(10) || key, 'UTF8')), 'hex')
                    WHERE sealed IS NULL;
                CREATE TABLE IF NOT EXISTS outbox (
                    id text PRIMARY KEY,
                    service text NOT NULL,
                    type text NOT NULL,
                    data bytea NOT NULL,
                    idempotency_key text,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    attempts integer NOT NULL DEFAULT 0,
                    next_attempt_at timestamptz NOT NULL DEFAULT now(),
                    delivered_at timestamptz,
                    outcome text,
                    last_error text
                );
                CREATE INDEX IF NOT EXISTS outbox_due ON outbox (next_attempt_at) WHERE delivered_at IS NULL;
                UPDATE outbox SET data = ''::bytea WHERE delivered_at IS NOT NULL AND octet_length(data) > 0;
                ALTER TABLE outbox ADD COLUMN IF NOT EXISTS account_id uuid;
                CREATE TABLE IF NOT EXISTS rate_limit_hits (
                    name text NOT NULL,
                    key text NOT NULL,
                    at timestamptz NOT NULL,
                    expires_at timestamptz NOT NULL
                );
                CREATE INDEX IF NOT EXISTS rate_limit_hits_key ON rate_limit_hits (name, key, at);
                CREATE INDEX IF NOT EXISTS rate_limit_hits_expiry ON rate_limit_hits (expires_at);
                CREATE TABLE IF NOT EXISTS account_keys (
                    account_id uuid PRIMARY KEY,
                    wrapped bytea NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now()
                );
                CREATE INDEX IF NOT EXISTS outbox_account ON outbox (account_id) WHERE account_id IS NOT NULL AND delivered_at IS NULL;
                CREATE TABLE IF NOT EXISTS media_objects (
                    id uuid PRIMARY KEY,
                    account_id uuid NOT NULL,
                    media_type text NOT NULL,
                    width integer NOT NULL,
                    height integer NOT NULL,
                    size integer NOT NULL,
                    thumbnail_media_type text NOT NULL,
                    thumbnail_width integer NOT NULL,
                    thumbnail_height integer NOT NULL,
                    thumbnail_size integer NOT NULL,
                    created_at timestamptz NOT NULL
                );
                CREATE INDEX IF NOT EXISTS media_objects_account ON media_objects (account_id);
                CREATE TABLE IF NOT EXISTS backoffs (
                    name text NOT NULL,
                    key text NOT NULL,
                    count integer NOT NULL,
                    last_at timestamptz NOT NULL,
                    expires_at timestamptz NOT NULL,
                    blocked_until timestamptz,
                    PRIMARY KEY (name, key)
                );
                CREATE INDEX IF NOT EXISTS backoffs_expiry ON backoffs (expires_at);
                CREATE INDEX IF NOT EXISTS backoffs_key ON backoffs (key);
                CREATE TABLE IF NOT EXISTS media_blobs (
                    key text PRIMARY KEY,
                    content bytea NOT NULL
                );
                CREATE TABLE IF NOT EXISTS live_cursors (
                    account_id uuid NOT NULL,
                    stream text NOT NULL,
                    cursor bigint NOT NULL DEFAULT 0,
                    present_until timestamptz,
                    PRIMARY KEY (account_id, stream)
                );
                CREATE TABLE IF NOT EXISTS live_items (
                    account_id uuid NOT NULL,
                    stream text NOT NULL,
                    cursor bigint NOT NULL,
                    type text NOT NULL,
                    ref bytea NOT NULL,
                    published boolean NOT NULL DEFAULT false,
                    created_at timestamptz NOT NULL,
                    PRIMARY KEY (account_id, stream, cursor)
                );
                CREATE INDEX IF NOT EXISTS live_items_age ON live_items (created_at);
                """, on: connection)
            var applied = Set<Int>()
            for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            var now: [Int] = []
            for migration in migrations where !applied.contains(migration.version) {
                try await run(script: migration.sql, on: connection)
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
                now.append(migration.version)
                logger.info("applied migration", metadata: ["schema": "\(schema)", "version": "\(migration.version)", "name": "\(migration.name)"])
            }
            return now
        }
    }

    /// Runs every statement of a SQL script, in order, on `connection`.
    private func run(script: String, on connection: PostgresConnection) async throws {
        for statement in SQLStatements.split(script) {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }
}
