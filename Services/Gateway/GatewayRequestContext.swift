import Envelope
import Hummingbird
import NIOCore

/// The per-request state of the gateway: who asked (request id, trace) and, once verified, as whom.
public struct GatewayRequestContext: RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's `X-Request-Id` when it sent a usable one, else one made here.
    public var requestID: String
    /// This hop's span in the client's trace (or a new trace).
    public var traceParent: TraceParent
    /// The caller the authenticator verified, nil for anonymous requests.
    public var caller: AuthenticatedCaller?
    /// The peer of the connection: the client, or the nearest proxy.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        requestID = ""
        traceParent = .random()
    }
}
