import ZeroMQ

/// Contexts for tests that open raw sockets.
public enum ZMQContextFactory {
    public static func make() throws -> ZMQContext { try ZMQContext() }
}
