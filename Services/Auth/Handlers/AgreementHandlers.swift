import Bus
import AuthContract
import Contracts
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport

/// `auth.agreements.list.v1`, `auth.agreements.sign.v1` and `auth.agreements.withdraw.v1`: the
/// signed-in caller's agreement to the current policies of the app their session is for; another
/// app's policy is `not_found` there, like one that does not exist.
struct AgreementHandlers: Sendable {
    let database: Database
    let sessions: SessionPostgresRepository
    let agreements: AgreementPostgresRepository

    @Sendable
    func list(_ request: Empty, _ context: RequestContext) async throws -> Auth.Agreements.List.Response {
        let app = try AccountRules.app(context)
        return try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { caller, connection in
            .init(agreements: try await agreements.list(account: caller.account, app: app, on: connection))
        }
    }

    @Sendable
    func sign(_ request: Auth.Agreements.Sign.Request, _ context: RequestContext) async throws -> Auth.Agreement {
        let app = try AccountRules.app(context)
        return try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { caller, connection in
            let current = try await policy(request.policy, of: caller.account, app: app, on: connection)
            guard request.version == current.version else {
                throw OperationError(
                    .conflict, "data.version: version \(current.version) of \(current.policy) is current; show it and sign that",
                    fields: [.init(field: "data.version", message: "is not the current version (\(current.version))")])
            }
            try await agreements.sign(account: caller.account, policy: current.policy, version: current.version, on: connection)
            return try await policy(request.policy, of: caller.account, app: app, on: connection)
        }
    }

    @Sendable
    func withdraw(_ request: Auth.Agreements.Withdraw.Request, _ context: RequestContext) async throws -> Auth.Agreement {
        let app = try AccountRules.app(context)
        return try await AccountRules.withLiveCaller(context, database: database, sessions: sessions) { caller, connection in
            let current = try await policy(request.policy, of: caller.account, app: app, on: connection)
            try await agreements.withdraw(account: caller.account, policy: current.policy, on: connection)
            return try await policy(request.policy, of: caller.account, app: app, on: connection)
        }
    }

    private func policy(_ id: String, of account: UUID, app: ClientApp, on connection: PostgresConnection) async throws -> Auth.Agreement {
        guard id.wholeMatch(of: /[a-z0-9][a-z0-9-]{0,63}/) != nil,
              let agreement = try await agreements.list(account: account, app: app, policy: id, on: connection).first
        else {
            throw OperationError(.notFound, "data.policy: there is no policy \(id)", fields: [.init(field: "data.policy", message: "is not a policy")])
        }
        return agreement
    }
}
