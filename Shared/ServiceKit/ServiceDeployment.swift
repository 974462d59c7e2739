import ServiceSupport

/// What a deployment of a service needs beyond its settings: a line for operators, writable folders
/// and how far it scales. The compose file, the Kubernetes manifests, the README's table of services
/// and run.sh are made from this, its schema and its settings' provisions
/// (`MELON_WRITE_DOCS=1 swift test --filter DeployFilesTests` rewrites them).
public struct ServiceDeployment: Sendable {
    /// What the service does and keeps, for operators and the README's table (longer than the
    /// contract's summary).
    public var about: String
    /// Folders the service writes to (the root file system is read-only in Kubernetes).
    public var scratch: [ScratchDirectory]
    /// The most replicas Kubernetes scales it to.
    public var maxReplicas: Int

    public init(about: String, scratch: [ScratchDirectory] = [], maxReplicas: Int = 8) {
        self.about = about
        self.scratch = scratch
        self.maxReplicas = maxReplicas
    }
}

/// A folder a service writes to: a named volume (`shared`, in compose: every replica sees the same,
/// as the mail spool) or a private temporary folder, mounted at `path`; `environment` points the
/// service at it.
public struct ScratchDirectory: Sendable {
    public var volume: String
    public var path: String
    public var shared: Bool
    public var environment: [String: String]

    public init(volume: String, path: String, shared: Bool, environment: [String: String]) {
        self.volume = volume
        self.path = path
        self.shared = shared
        self.environment = environment
    }
}
