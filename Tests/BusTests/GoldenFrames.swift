import ZeroMQ

/// RFC 7 frames written out byte by byte from the specification, independent of `MDP`.
enum Golden {
    static let empty: Frame = []
    /// "MDPC01"
    static let client: Frame = [0x4D, 0x44, 0x50, 0x43, 0x30, 0x31]
    /// "MDPW01"
    static let worker: Frame = [0x4D, 0x44, 0x50, 0x57, 0x30, 0x31]
    static let ready: Frame = [0x01]
    static let request: Frame = [0x02]
    static let reply: Frame = [0x03]
    static let heartbeat: Frame = [0x04]
    static let disconnect: Frame = [0x05]

    static func bytes(_ text: String) -> Frame { Array(text.utf8) }
}
