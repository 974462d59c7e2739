import CZeroMQ

/// A CurveZMQ key pair (RFC 26), each key in Z85: 40 printable characters for 32 bytes.
public struct CurveKeyPair: Sendable, Equatable {
    public let publicKey: String
    public let secretKey: String

    /// A key given in the wrong form.
    public struct InvalidKey: Error, CustomStringConvertible {
        public let description: String
    }

    /// A new random pair.
    public static func generate() throws -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41), secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else { throw ZMQError("zmq_curve_keypair") }
        return CurveKeyPair(publicKey: Self.string(publicKey), secretKey: Self.string(secretKey))
    }

    /// The pair of a secret key, its public key derived from it.
    public init(secretKey: String) throws {
        guard Self.isKey(secretKey) else { throw InvalidKey(description: "a CURVE key is 40 characters of Z85") }
        var publicKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicKey, secretKey) == 0 else { throw ZMQError("zmq_curve_public") }
        self.init(publicKey: Self.string(publicKey), secretKey: secretKey)
    }

    private init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// Whether `text` is a key in Z85 (40 characters that decode to 32 bytes).
    public static func isKey(_ text: String) -> Bool {
        guard text.utf8.count == 40 else { return false }
        var bytes = [UInt8](repeating: 0, count: 32)
        return zmq_z85_decode(&bytes, text) != nil
    }

    /// A 32-byte key (as a ZAP request carries it) in Z85.
    public static func z85(_ key: [UInt8]) -> String? {
        guard key.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        guard zmq_z85_encode(&text, key, 32) != nil else { return nil }
        return string(text)
    }

    private static func string(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension ZMQSocket {
    /// Makes this socket a CURVE server with `keyPair`; `domain` names it to the ZAP handler, which
    /// admits or refuses each client key.
    public func serveCurve(_ keyPair: CurveKeyPair, domain: String) throws {
        try set(.curveServer, true)
        try set(.curveSecretKey, Array(keyPair.secretKey.utf8) + [0])
        try set(.zapDomain, Array(domain.utf8))
    }

    /// Makes this socket a CURVE client with `keyPair`, talking only to the server holding `serverKey`'s secret.
    public func useCurve(_ keyPair: CurveKeyPair, serverKey: String) throws {
        try set(.curveServerKey, Array(serverKey.utf8) + [0])
        try set(.curvePublicKey, Array(keyPair.publicKey.utf8) + [0])
        try set(.curveSecretKey, Array(keyPair.secretKey.utf8) + [0])
    }
}
