import AuthContract
import Bus
import Contracts

/// What each bus member may do, by the name BUS_MEMBERS gives its key; the broker enforces it when
/// CurveZMQ is on.
///
/// - `gateway` serves nothing; it may call the operations clients reach over HTTP, plus the two it
///   needs to check tokens (the signing keys and the ended sessions), and it alone sends requests on
///   behalf of a signed-in user.
/// - Any other name is a service of that name: it may serve only its own name, call any operation
///   but the account erasures (only `auth` sends those), and never speak for a user.
/// - Only `auth` may publish live events (its session revocations).
public enum BusPolicy {
    public static let gateway = "gateway"
    /// The services that publish live events.
    public static let publishers: Set<String> = [Auth.name]

    public static func rights(of name: String) -> BusRights {
        if name == gateway {
            return BusRights(serves: [], calls: { gatewayCalls.contains($0) }, actsForUsers: true, publishes: false)
        }
        let mayErase = name == Auth.name
        return BusRights(
            serves: [name], calls: { type in mayErase || !erasureTypes.contains(type) },
            actsForUsers: false, publishes: publishers.contains(name))
    }

    /// Whether `name` is the gateway or a service of the catalog (a test's or a benchmark's member is neither).
    public static func isKnown(_ name: String) -> Bool {
        name == gateway || ServiceCatalog.services.contains { $0.name == name }
    }

    static let erasureTypes = Set(ServiceCatalog.erasures.map { $0.type })
    static let gatewayCalls = Set(ServiceCatalog.operations.filter { !$0.http.isEmpty }.map { $0.type })
        .union([Auth.Keys.Jwks.type, Auth.Sessions.Revoked.type])
}
