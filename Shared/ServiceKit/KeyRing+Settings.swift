import Crypto
import Foundation
import PostgresSupport
import ServiceSupport

extension ProcessSettings {
    /// The key ring of `current` (32 bytes in base64) and `previous` (such keys, comma-separated;
    /// empty when no rotation is under way).
    public func keyRing(current: Setting, previous: Setting) throws -> KeyRing {
        let older = try (string(previous) ?? "").split(separator: ",").map { text in
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let bytes = Data(base64Encoded: trimmed), bytes.count == 32 else {
                throw InvalidValue(setting: previous, value: "(secret)", expected: "keys of 32 bytes in base64, separated by commas")
            }
            return SymmetricKey(data: bytes)
        }
        return KeyRing(current: SymmetricKey(data: try key256(current)), previous: older)
    }
}

extension Setting {
    /// The setting that holds `key`'s previous values during a rotation (`TAX_FORM_KEY_PREVIOUS`).
    public static func previousKeys(of key: Setting) -> Setting {
        Setting(
            key.key + ".previous", default: "",
            help: "During a rotation of \(key.environmentName): its previous values, comma-separated, which still open what they sealed "
                + "until the hourly rotation job has sealed it again under the current one (the job logs when none is left).",
            isSecret: true, provision: .perDeployment)
    }
}

extension PeriodicJob {
    /// Seals the data keys of `account_keys` still under a previous key again under the current one.
    public static func rewrappingAccountKeys(database: Database, ring: KeyRing) -> PeriodicJob {
        PeriodicJob("account-keys.rewrap", every: .seconds(3600), database: database) { connection in
            try await database.rewrapAccountKeys(ring: ring, on: connection)
        }
    }
}
