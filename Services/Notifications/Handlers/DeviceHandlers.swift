import Bus
import Contracts
import Envelope
import Foundation
import NotificationsContract
import PostgresSupport

/// `notifications.devices.*` and `notifications.sessions.end.v1`: the caller's devices. Every
/// lookup is by owner and id, so another account's device is `not_found`.
struct DeviceHandlers: Sendable {
    let database: Database
    let devices: DeviceStore
    let limit: Int

    @Sendable
    func register(_ request: Notifications.Devices.Register.Request, _ context: RequestContext) async throws -> Notifications.Devices.Device {
        let caller = try Caller(context)
        if let zone = request.timeZone, TimeZone(identifier: zone) == nil {
            throw OperationError.invalid(field: "data.timeZone", "is not a time zone this server knows")
        }
        // A device gets the pushes of the app its session signed in to, whatever the request says.
        guard let app = context.attributes.app.flatMap(Notifications.App.init(rawValue:)) ?? request.app else {
            throw OperationError.invalid(field: "data.app", "is needed: the session names no app")
        }
        if let named = request.app, named != app {
            throw OperationError.invalid(field: "data.app", "must be \(app.rawValue), the app this session is signed in to (not \(named.rawValue))")
        }
        let device = try await database.transaction { connection in
            try await devices.register(request, app: app, account: caller.account, session: caller.session, limit: limit, on: connection)
        }
        context.logger.info("device registered", metadata: ["device_id": "\(device.id)", "app": "\(device.app.rawValue)", "environment": "\(device.environment.rawValue)"])
        return device
    }

    @Sendable
    func list(_ request: Empty, _ context: RequestContext) async throws -> Notifications.Devices.List.Response {
        .init(devices: try await devices.list(account: try Caller(context).account))
    }

    @Sendable
    func delete(_ request: Notifications.Devices.Delete.Request, _ context: RequestContext) async throws -> Notifications.Devices.Delete.Response {
        let caller = try Caller(context)
        guard let id = UUID(uuidString: request.id), try await devices.delete(id: id, account: caller.account) else { throw Self.notFound }
        return .init(deleted: true)
    }

    @Sendable
    func endSessions(_ request: Notifications.Sessions.End.Request, _ context: RequestContext) async throws -> Notifications.Sessions.End.Response {
        guard let account = UUID(uuidString: request.account) else { throw OperationError.invalid(field: "data.account", "must be an account id") }
        let removed = try await devices.endSessions(request.sessions.compactMap { UUID(uuidString: $0) }, account: account)
        if removed > 0 { context.logger.info("devices of ended sessions removed", metadata: ["devices": "\(removed)"]) }
        return .init(devicesRemoved: removed)
    }

    static let notFound = OperationError(.notFound, "data.id: you have no device with this id", fields: [.init(field: "data.id", message: "is not one of your devices")])
}

/// The signed-in caller the gateway verified: the account and the session its token belongs to.
struct Caller {
    let account: UUID
    let session: UUID?

    init(_ context: RequestContext) throws(OperationError) {
        account = try context.attributes.signedInAccount(for: "notifications")
        session = context.attributes.claim("sid").flatMap(UUID.init(uuidString:))
    }
}
