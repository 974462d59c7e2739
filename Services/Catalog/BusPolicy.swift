import AuthContract
import Bus
import Contracts

/// What each bus member may do, by the name BUS_MEMBERS gives its key; the broker enforces it when
/// CurveZMQ is on.
///
/// - `gateway` serves nothing; it may call the operations clients reach over HTTP, the live streams'
///   catch-ups (their WebSockets), and the two it needs to check tokens (the signing keys and the
///   ended sessions), and it alone sends requests on behalf of a signed-in user.
/// - A service of the catalog may serve only its own name and call only what its contract declares
///   (`ServiceContract.calls`), plus, for `auth` alone, every account erasure; it never speaks for a
///   user.
/// - Any other name (a test's or a benchmark's member) may serve its own name and call only
///   operations outside the catalog (fixtures such as `echo`), never a product's.
/// - Only the services whose contracts say so may publish live events (auth's session revocations,
///   the live streams).
public enum BusPolicy {
    public static let gateway = "gateway"
    /// The services that publish live events: those whose contract says so.
    public static let publishers = Set(ServiceCatalog.services.filter { $0.publishesEvents }.map { $0.name })

    public static func rights(of name: String) -> BusRights {
        if name == gateway {
            return BusRights(serves: [], calls: { gatewayCalls.contains($0) }, actsForUsers: true, publishes: false)
        }
        guard let contract = ServiceCatalog.services.first(where: { $0.name == name }) else {
            return BusRights(serves: [name], calls: { !productTypes.contains($0) }, actsForUsers: false, publishes: false)
        }
        let calls = Set(contract.calls.map { $0.type }).union(name == Auth.name ? erasureTypes : [])
        return BusRights(serves: [name], calls: { calls.contains($0) }, actsForUsers: false, publishes: publishers.contains(name))
    }

    /// Whether `name` is the gateway or a service of the catalog (a test's or a benchmark's member is neither).
    public static func isKnown(_ name: String) -> Bool {
        name == gateway || ServiceCatalog.services.contains { $0.name == name }
    }

    static let erasureTypes = Set(ServiceCatalog.erasures.map { $0.type })
    static let productTypes = Set(ServiceCatalog.operations.map { $0.type })
    static let gatewayCalls = Set(ServiceCatalog.operations.filter { !$0.http.isEmpty }.map { $0.type })
        .union(ServiceCatalog.services.flatMap { $0.liveStreams.map { $0.sync.type } })
        .union([Auth.Keys.Jwks.type, Auth.Sessions.Revoked.type])
}
