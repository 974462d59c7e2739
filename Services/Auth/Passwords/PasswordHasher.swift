import CArgon2
import Foundation
import NIOPosix

/// Argon2id password hashes in PHC string format (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`), through
/// the reference implementation (libargon2). Hashing takes tens of milliseconds of CPU and about
/// `memoryKiB` of memory by design, so it runs on NIO's blocking-work pool, never on a Swift
/// concurrency thread.
public struct PasswordHasher: Sendable {
    /// An Argon2id hash (OWASP parameters) of a password nobody has: verified against when an email
    /// is unknown, so that a login takes as long either way.
    static let decoyHash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$mrMxPtCODpEWm3XJuRC2RShkJZ1ymBtczcrPlB0sYKY"

    /// Argon2id cost parameters.
    public struct Parameters: Sendable, Equatable, CustomStringConvertible {
        public var memoryKiB: UInt32
        public var iterations: UInt32
        public var parallelism: UInt32

        public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }

        /// OWASP Password Storage Cheat Sheet, Argon2id option 1: m=19 MiB, t=2, p=1
        /// (https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#argon2id).
        public static let owasp = Parameters(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)

        public var description: String { "m=\(memoryKiB),t=\(iterations),p=\(parallelism)" }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let parameters: Parameters
    private let pool: NIOThreadPool
    static let saltBytes = 16
    static let hashBytes = 32

    public init(parameters: Parameters = .owasp, pool: NIOThreadPool = .singleton) {
        self.parameters = parameters
        self.pool = pool
    }

    /// A new PHC string for `password`, with a fresh random salt.
    public func hash(_ password: String) async throws -> String {
        let parameters = parameters
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<Self.saltBytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return try await pool.runIfActive { try Self.encode(password, salt: salt, parameters: parameters) }
    }

    /// Whether `password` matches `encoded` (any Argon2id parameters: those it was made with).
    public func verify(_ password: String, against encoded: String) async throws -> Bool {
        try await pool.runIfActive {
            // Every UTF-8 byte, with its count: a C string would end at a NUL and hash less.
            let bytes = Array(password.utf8)
            let result = encoded.withCString { phc in
                bytes.withUnsafeBytes { argon2id_verify(phc, $0.baseAddress, bytes.count) }
            }
            switch result {
            case ARGON2_OK.rawValue: return true
            case ARGON2_VERIFY_MISMATCH.rawValue: return false
            default: throw Failure(description: "argon2id_verify: \(String(cString: argon2_error_message(result)))")
            }
        }
    }

    /// Whether `encoded` was made with other parameters than this hasher's (or is not Argon2id):
    /// re-hash at the next successful login.
    public func needsRehash(_ encoded: String) -> Bool {
        Self.parameters(of: encoded) != parameters
    }

    /// The parameters a PHC string names, or nil when it is not an Argon2id (v=19) string.
    static func parameters(of encoded: String) -> Parameters? {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].isEmpty, fields[1] == "argon2id", fields[2] == "v=19" else { return nil }
        var values: [Substring: UInt32] = [:]
        for pair in fields[3].split(separator: ",") {
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let value = UInt32(parts[1]) else { return nil }
            values[parts[0]] = value
        }
        guard let m = values["m"], let t = values["t"], let p = values["p"] else { return nil }
        return Parameters(memoryKiB: m, iterations: t, parallelism: p)
    }

    private static func encode(_ password: String, salt: [UInt8], parameters: Parameters) throws -> String {
        let length = argon2_encodedlen(parameters.iterations, parameters.memoryKiB, parameters.parallelism,
                                       UInt32(salt.count), UInt32(hashBytes), Argon2_id)
        var output = [CChar](repeating: 0, count: length)
        let bytes = Array(password.utf8)
        let result = bytes.withUnsafeBytes { pwd in
            argon2id_hash_encoded(
                parameters.iterations, parameters.memoryKiB, parameters.parallelism, pwd.baseAddress, bytes.count,
                salt, salt.count, hashBytes, &output, length)
        }
        guard result == ARGON2_OK.rawValue else {
            throw Failure(description: "argon2id_hash_encoded: \(String(cString: argon2_error_message(result)))")
        }
        return String(cString: output)
    }
}
