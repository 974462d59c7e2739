import Foundation
import ServiceKit
import ServiceSupport

/// What the deployment files say about each service, made from its definition: its name, schema,
/// settings' provisions and `ServiceDeployment`. `DeployFilesTests` holds the committed files to it.
struct DeployFiles {
    let services: [ServiceDefinition]

    // MARK: - The catalog

    /// `Services/Catalog/ServiceCatalog+Services.swift`: every contract, by name.
    var catalog: String {
        let sorted = services.sorted { $0.name < $1.name }
        let imports = (sorted.map { "\($0.folder)Contract" } + ["Contracts"]).sorted().map { "import \($0)" }
        return """
            // Made from MelonServices.all by DeployFilesTests (MELON_WRITE_DOCS=1 swift test --filter DeployFilesTests): do not edit.
            \(imports.joined(separator: "\n"))

            extension ServiceCatalog {
                public static let services: [any ServiceContract.Type] = [
            \(sorted.map { "        \(String(describing: $0.contract)).self," }.joined(separator: "\n"))
                ]
            }

            """
    }

    // MARK: - README.md

    /// The rows of the README's table of services.
    var readmeRows: String {
        services.map { "| [\($0.name)](Services/\($0.folder)/README.md) | \($0.deployment.about) |" }.joined(separator: "\n")
    }

    // MARK: - docker-compose.yml

    /// One block per service, then the job that makes their database roles.
    var composeServices: String {
        (services.map(composeService) + [composeRoles]).joined(separator: "\n\n")
    }

    /// The named volumes the services share.
    var composeVolumes: String {
        services.flatMap(\.deployment.scratch).filter(\.shared).map { "  \($0.volume):" }.joined(separator: "\n")
    }

    private func composeService(_ service: ServiceDefinition) -> String {
        let prefix = Self.variable(service.name)
        var lines = [
            Self.comment("\(service.name): \(service.deployment.about).", indent: "  "), "  \(service.name):", "    <<: *service", "    command: [\"\(service.name)\"]",
            "    environment:", "      <<: *service-environment",
            "      BUS_SECRET_KEY: ${\(prefix)_BUS_SECRET_KEY:?set the bus keys (broker keys, see the top of this file)}",
        ]
        if let schema = service.schema {
            lines.append("      \(Setting.databaseURL(service: service.name).environmentName): " + Self.roleURL(schema: schema))
        }
        for setting in service.settings {
            switch setting.provision {
            case .tuning: continue
            case .perDeployment: lines.append("      \(setting.environmentName): ${\(setting.environmentName):-\(Self.escaped(setting.defaultValue ?? ""))}")
            case .required(let local):
                lines.append("      \(setting.environmentName): ${\(setting.environmentName):?set \(setting.environmentName) (\(Self.howToMake(local, service)))}")
            }
        }
        let scratch = service.deployment.scratch
        for (name, value) in scratch.flatMap(\.environment).sorted(by: { $0.key < $1.key }) { lines.append("      \(name): \(value)") }
        let volumes = scratch.filter(\.shared), temporary = scratch.filter { !$0.shared }
        if !volumes.isEmpty { lines += ["    volumes:"] + volumes.map { "      - \($0.volume):\($0.path)" } }
        if !temporary.isEmpty { lines += ["    tmpfs:"] + temporary.map { "      - \($0.path)" } }
        lines += ["    deploy:", "      replicas: ${\(prefix)_REPLICAS:-1}"]
        return lines.joined(separator: "\n")
    }

    private var composeRoles: String {
        let schemas = services.compactMap(\.schema)
        return """
              # A role of its own for each service (deploy/service-role.sh): each owns its schema and reaches no
              # other. Runs to completion before the services start; safe to run again.
              database-roles:
                image: postgres:15-bookworm
                restart: "no"
                depends_on:
                  postgres:
                    condition: service_healthy
                environment:
                  ADMIN_URL: postgres://melon:${POSTGRES_PASSWORD}@postgres:5432/melon?sslmode=disable
            \(schemas.map { "      \($0): ${\(Self.passwordVariable($0)):?set \(Self.passwordVariable($0)) (letters and digits; openssl rand -hex 24)}" }.joined(separator: "\n"))
                volumes:
                  - ./deploy/service-role.sh:/melon/service-role.sh:ro
                command:
                  - bash
                  - -c
                  - for schema in \(schemas.joined(separator: " ")); do ROLE_PASSWORD="$${!schema}" bash /melon/service-role.sh "$$ADMIN_URL" "melon_$$schema" "$$schema" >/dev/null || exit 1; done
            """
    }

    // MARK: - Kubernetes

    /// `deploy/k8s/services.json`: what `render.py` needs of each service.
    var kubernetesServices: String {
        let entries = services.map { service -> String in
            var secret = service.settings.filter { $0.provision != .tuning }.map(\.environmentName)
            if service.schema != nil { secret.insert(Setting.databaseURL(service: service.name).environmentName, at: 0) }
            let about = "\(service.deployment.about). Its Secret melon-\(service.name) holds BUS_SECRET_KEY"
                + (secret.isEmpty ? "" : " and " + secret.joined(separator: ", ")) + "."
            let scratch = service.deployment.scratch.map { directory in
                let environment = directory.environment.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \(Self.json($0.value))" }.joined(separator: ", ")
                return "{\"volume\": \(Self.json(directory.volume)), \"path\": \(Self.json(directory.path)), \"env\": {\(environment)}}"
            }
            return """
                  {
                    "name": \(Self.json(service.name)),
                    "about": \(Self.json(about)),
                    "maxReplicas": \(service.deployment.maxReplicas),
                    "scratch": [\(scratch.joined(separator: ", "))]
                  }
                """
        }
        return "[\n" + entries.joined(separator: ",\n") + "\n]\n"
    }

    /// The comment in `deploy/k8s/config.yaml` that says how to make each service's Secret.
    var kubernetesSecrets: String {
        services.map { service in
            var parts = ["#   kubectl create secret generic melon-\(service.name) --from-literal=BUS_SECRET_KEY=\"...\""]
            if let schema = service.schema {
                parts.append("--from-literal=\(Setting.databaseURL(service: service.name).environmentName)=\"$(url melon_\(schema) \(schema))\"")
            }
            for setting in service.settings {
                switch setting.provision {
                case .tuning: continue
                case .perDeployment: parts.append("--from-literal=\(setting.environmentName)=...")
                case .required(.randomKey): parts.append("--from-literal=\(setting.environmentName)=\"$(openssl rand -base64 32)\"")
                case .required(.text): parts.append("--from-literal=\(setting.environmentName)=...")
                }
            }
            return parts.joined(separator: " \\\n#     ")
        }.joined(separator: "\n")
    }

    // MARK: - run.sh

    /// The lines of run.sh that give each service its role and its required settings.
    var runScript: String {
        var lines: [String] = []
        for service in services {
            if let schema = service.schema { lines.append("service_role \(schema) \(Setting.databaseURL(service: service.name).environmentName)") }
            for setting in service.settings {
                guard case .required(let local) = setting.provision else { continue }
                switch local {
                case .randomKey: lines.append("local_key \(setting.environmentName)")
                case .text(let text): lines.append("export \(setting.environmentName)=${\(setting.environmentName):-\(text)}")
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    // MARK: - Names

    /// `text` as comment lines of at most 100 characters, each starting with `indent` and `# `.
    static func comment(_ text: String, indent: String) -> String {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, indent.count + 2 + line.count + 1 + word.count > 100 {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).map { "\(indent)# \($0)" }.joined(separator: "\n")
    }

    /// `PDF_EMAIL` for `pdf-email`.
    static func variable(_ name: String) -> String { name.uppercased().replacingOccurrences(of: "-", with: "_") }

    static func passwordVariable(_ schema: String) -> String { schema.uppercased() + "_DATABASE_PASSWORD" }

    static func roleURL(schema: String) -> String {
        "postgres://melon_\(schema):${\(passwordVariable(schema))}@postgres:5432/melon?sslmode=disable"
    }

    static func howToMake(_ local: Setting.LocalValue, _ service: ServiceDefinition) -> String {
        switch local {
        case .randomKey: "openssl rand -base64 32"
        case .text: "Services/\(service.folder)/README.md says what"
        }
    }

    /// A value in the compose file, where `$` starts an interpolation.
    static func escaped(_ value: String) -> String { value.replacingOccurrences(of: "$", with: "$$") }

    static func json(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
    }
}
