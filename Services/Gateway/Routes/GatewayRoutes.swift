/// The routes of every product service, one file per service beside this one. The gateway serves
/// exactly these; the OpenAPI document is built from them.
public enum GatewayRoutes {
    public static let all: [BusRoute] = AuthRoutes.all + RefundRoutes.all
}
