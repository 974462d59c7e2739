import Foundation
import MelonServices
import ServiceCatalog
import ServiceKit
import ServiceSupport
import Testing

/// `MelonServices.all` is the one list of services: the catalog, the README's table, the compose
/// file, the Kubernetes manifests and run.sh are made from it, and each test here fails, naming the
/// file, when one is not what the list makes now (`MELON_WRITE_DOCS=1` rewrites them).
@Suite(.timeLimit(.minutes(2))) struct DeployFilesTests {
    let files = DeployFiles(services: MelonServices.all)

    @Test func theCatalogListsEveryService() throws {
        try GeneratedFiles.check("Services/Catalog/ServiceCatalog+Services.swift", whole: files.catalog)
    }

    @Test func theReadmeTableListsEveryService() throws {
        try GeneratedFiles.check("README.md", blocks: ["services": files.readmeRows], markers: .markdown)
    }

    @Test func composeRunsEveryServiceWithItsRoleAndSettings() throws {
        try GeneratedFiles.check("docker-compose.yml", blocks: ["services": files.composeServices, "volumes": files.composeVolumes], markers: .hash)
    }

    @Test func kubernetesRendersEveryServiceAndSaysWhatGoesInItsSecret() throws {
        try GeneratedFiles.check("deploy/k8s/services.json", whole: files.kubernetesServices)
        try GeneratedFiles.check("deploy/k8s/config.yaml", blocks: ["secrets": files.kubernetesSecrets], markers: .hash)
    }

    @Test func runShGivesEveryServiceItsRoleAndRequiredSettings() throws {
        try GeneratedFiles.check("deploy/run.sh", blocks: ["services": files.runScript], markers: .hash)
    }

    /// Each setting is declared by one service, under that service's prefix (`tax.form.` for
    /// tax-form), so `melon`, which reads every service's settings at once, never takes one
    /// service's value for another's.
    @Test func everySettingKeyBelongsToOneServiceAndCarriesItsPrefix() {
        var owners: [String: String] = [:]
        for service in MelonServices.all {
            for setting in service.settings {
                if let owner = owners[setting.key] { Issue.record("\(setting.environmentName) is declared by both \(owner) and \(service.name)") }
                owners[setting.key] = service.name
            }
        }
        let shared = Set((Setting.brokerSettings + MelonServices.all.flatMap(\.processSettings)).map(\.key))
            .subtracting(owners.keys).subtracting(MelonServices.all.map { Setting.databaseURL(service: $0.name).key })
        var prefixOwners: [String: String] = [:]
        for service in MelonServices.all {
            let prefixes = service.settingPrefixes
            for setting in service.settings where !prefixes.contains(where: { setting.key.hasPrefix($0 + ".") }) {
                Issue.record("\(service.name) declares \(setting.environmentName), which does not start with \(prefixes.map { $0.uppercased() + "_" })")
            }
            for prefix in prefixes {
                if let owner = prefixOwners.first(where: { $0.key.hasPrefix(prefix + ".") || prefix.hasPrefix($0.key + ".") || $0.key == prefix }) {
                    Issue.record("\(service.name)'s settings prefix \(prefix) overlaps \(owner.value)'s \(owner.key)")
                }
                prefixOwners[prefix] = service.name
                for key in shared where key.hasPrefix(prefix + ".") { Issue.record("\(service.name)'s prefix \(prefix) covers the shared setting \(key)") }
            }
        }
    }
}
