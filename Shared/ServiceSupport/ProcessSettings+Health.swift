import Logging

extension ProcessSettings {
    /// The probe endpoints of this process when HEALTH_PORT is set, checking `checks` for /readyz.
    public func healthServer(checks: [(name: String, check: HealthServer.Check)], logger: Logger) throws -> HealthServer? {
        guard let port = string(.healthPort), !port.isEmpty else { return nil }
        return HealthServer(host: try requiredString(.healthHost), port: try int(.healthPort), checks: checks, logger: logger)
    }
}
