/// A typed bus operation: the service that serves it, its versioned `type` and its message types.
///
/// Contracts declare one per operation, such as `Household.Chore.Complete`, and both the worker runtime
/// and the client use it, so the two sides cannot disagree on names or shapes.
public protocol BusOperation: Sendable {
    associatedtype Request: Codable & Sendable
    associatedtype Response: Codable & Sendable

    /// The bus (Majordomo service) name, such as `household`.
    static var service: String { get }
    /// The envelope type, `<service>.<resource>.<verb>.v<N>`.
    static var type: String { get }
}

/// A reply body with nothing in it, for operations that only succeed or fail.
public struct Empty: Codable, Sendable, Equatable {
    public init() {}
}
