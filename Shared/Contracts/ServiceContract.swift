import Envelope

/// What a service offers other services and clients: its bus name and its operations. Each
/// service's contract target declares one, and the catalog lists them.
public protocol ServiceContract: SendableMetatype {
    /// The bus (Majordomo) name, such as `refund-calculator`.
    static var name: String { get }
    /// What the service does, in one line: its tag in the API document and its process's `--help`.
    static var summary: String { get }
    /// Every operation the service serves.
    static var operations: [any OperationDeclaration.Type] { get }
    /// Whose sessions may call its signed-in routes: every service says it, and a route that differs
    /// says so on its binding. The gateway refuses a session of another app before the bus.
    static var apps: AppScope { get }
    /// Its erase operation, if it keeps personal data: auth sends it when an account is deleted.
    static var erase: (any AccountEraseOperation.Type)? { get }
    /// The operations of other services it calls, over the bus or through its outbox: its call
    /// rights on the bus (`BusPolicy`), and all its own bus client lets it call.
    static var calls: [any OperationDeclaration.Type] { get }
    /// Whether it publishes live events on the broker's proxy (its right on the bus): it does when
    /// it has live streams.
    static var publishesEvents: Bool { get }
    /// The live streams it pushes to signed-in clients through the gateway's WebSocket.
    static var liveStreams: [LiveStream] { get }
}

extension ServiceContract {
    public static var erase: (any AccountEraseOperation.Type)? { nil }
    public static var calls: [any OperationDeclaration.Type] { [] }
    public static var publishesEvents: Bool { !liveStreams.isEmpty }
    public static var liveStreams: [LiveStream] { [] }
}

/// Which account was deleted: every service that keeps personal data erases what it holds of it.
public struct AccountErasure: Codable, Sendable, Equatable, FieldRules {
    /// The deleted account's id.
    public var account: String
    /// Its email address.
    public var email: String

    public init(account: String, email: String) {
        self.account = account
        self.email = email
    }

    public static let fieldRules: [String: FieldRule] = ["account": .uuid, "email": .email]
}

/// `<service>.account.erase.v1`: a deleted account's data goes. Auth sends it through its outbox
/// (at least once), so a repeat must find nothing left and succeed.
public protocol AccountEraseOperation: OperationDeclaration where Request == AccountErasure {}
