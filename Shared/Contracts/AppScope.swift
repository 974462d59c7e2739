import Envelope

/// Which apps' sessions may call a route: a signed-in request from a session of another app is
/// refused `forbidden` by the gateway, before the bus. Each service declares it once for its routes
/// (`ServiceContract.apps`), and a route that differs says so on its binding (`HTTPBinding.apps`).
/// Routes anyone may call without signing in read no session, so no app either.
public struct AppScope: Sendable, Equatable {
    /// The apps whose sessions may call, in the order the API document lists them; nil: every app.
    public let apps: [ClientApp]?

    /// A session of any app.
    public static let everyApp = AppScope(apps: nil)

    /// Sessions of these apps only.
    public static func only(_ apps: ClientApp...) -> AppScope {
        precondition(!apps.isEmpty, "an app scope names at least one app")
        return AppScope(apps: apps)
    }

    /// The apps whose sessions may call, every app's named for `everyApp` (the API document's `x-melon-apps`).
    public var listed: [ClientApp] { apps ?? ClientApp.allCases }

    /// Whether a session of `app` (the token's `client_id`) may call.
    public func allows(_ app: String?) -> Bool {
        guard let apps else { return true }
        return app.flatMap(ClientApp.init(rawValue:)).map(apps.contains) ?? false
    }

    /// As the API document says it: "any app", "the household app", "the marketplace or nebula app".
    public var phrase: String {
        guard let apps else { return "any app" }
        let names = apps.map(\.rawValue)
        return "the " + (names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names.last!) + " app"
    }

    /// The refusal of a session of another app.
    public func refusal(of app: String?) -> OperationError {
        OperationError(.forbidden, "this route is for sessions of \(phrase); sign in from that app (this session is of \(app.map { "the \($0) app" } ?? "no app"))")
    }
}
