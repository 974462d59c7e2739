extension Setting {
    /// `<SERVICE>_DATABASE_URL`: the database of one service, when it is not DATABASE_URL's.
    public static func databaseURL(service: String) -> Setting {
        Setting(
            "\(service.replacingOccurrences(of: "-", with: ".")).database.url", default: nil,
            help: "The \(service) service's own database, in DATABASE_URL's form; unset: DATABASE_URL.", isSecret: true)
    }
}

extension ProcessSettings {
    /// The database URL of `service`: its own setting when given, else DATABASE_URL.
    public func databaseURL(service: String) throws -> String {
        if let own = string(.databaseURL(service: service)), !own.isEmpty { return own }
        return try requiredString(.databaseURL)
    }
}
