import Foundation
import MelonServices
import Testing
import TestSupport

extension ServiceStackTests {
/// No Docker engine or cluster runs here, so the deploy files are checked against their schemas
/// (the Compose specification, the Kubernetes OpenAPI schemas) and against the package: a typo or a
/// container running an executable the image does not build fails the suite.
@Suite(.timeLimit(.minutes(10))) struct DeployManifestTests {
    static let root = BuildProducts.packageRoot()

    private func tool(_ name: String) throws -> String {
        let tools = try #require(ProcessInfo.processInfo.environment["MELON_TEST_TOOLS"], "run the tests with ./deploy/test.sh, which installs the validators")
        return "\(tools)/\(name)"
    }

    /// Runs a validator on `files` and returns its exit status and output.
    private func validate(_ validator: [String], _ files: [String]) async throws -> (Int32?, String) {
        let run = try ChildProcess(executable: validator[0], arguments: Array(validator.dropFirst()) + files, name: "validator")
        let status = await run.wait(timeout: .seconds(120))
        return (status, run.output)
    }

    private var kubernetes: [String] { get throws { [try tool("kubernetes-validate"), "--strict", "--no-warn"] } }
    private var compose: [String] { get throws { [try tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec"] } }

    /// The manifests as deployed: the fixed ones, and every service's rendered from the base
    /// (`deploy/k8s/render.py`) into a temporary file.
    private func manifests() async throws -> [String] {
        let fixed = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("deploy/k8s").path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { Self.root.appendingPathComponent("deploy/k8s/\($0)").path }
        let render = try ChildProcess(executable: "/usr/bin/python3", arguments: [Self.root.appendingPathComponent("deploy/k8s/render.py").path], name: "render")
        #expect(await render.wait(timeout: .seconds(30)) == 0, "\(render.output)")
        let rendered = FileManager.default.temporaryDirectory.appendingPathComponent("melon-services-\(UUID().uuidString).yaml")
        try render.output.write(to: rendered, atomically: true, encoding: .utf8)
        return fixed + [rendered.path]
    }

    /// What deploy/products.sh prints: the executables the image builds.
    private func products() async throws -> Set<String> {
        let run = try ChildProcess(executable: Self.root.appendingPathComponent("deploy/products.sh").path, arguments: [], name: "products")
        #expect(await run.wait(timeout: .seconds(120)) == 0, "\(run.output)")
        return Set(run.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.wholeMatch(of: /[a-z-]+/) != nil })
    }

    @Test func theKubernetesManifestsMatchTheirSchemas() async throws {
        let (status, output) = try await validate(try kubernetes, try await manifests())
        #expect(status == 0, "\(output)")
    }

    /// Under the NetworkPolicies, only Melon's pods reach the broker, anyone reaches the gateway's
    /// HTTP port, and only monitoring reaches the health ports (without them, anyone reaches
    /// anything); each service mounts its own Secret alone, the gateway and the broker none.
    @Test func thePartsAreKeptApartByNetworkAndBySecrets() async throws {
        let check = [try tool("python"), Self.root.appendingPathComponent("Tests/Deploy/check_isolation.py").path]
        let all = try await manifests()
        let (status, output) = try await validate(check, all)
        #expect(status == 0, "\(output)")
        let (open, listed) = try await validate(check, all.filter { !$0.hasSuffix("network-policy.yaml") })
        #expect(open != 0 && listed.contains("melon-broker:bus is reached by"), "\(listed)")
    }

    @Test func theComposeFileMatchesTheComposeSpecification() async throws {
        let (status, output) = try await validate(try compose, [Self.root.appendingPathComponent("docker-compose.yml").path])
        #expect(status == 0, "\(output)")
    }

    @Test func aTypoInEitherFails() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("melon-deploy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let gateway = try String(contentsOfFile: Self.root.appendingPathComponent("deploy/k8s/gateway.yaml").path, encoding: .utf8)
        let brokenManifest = folder.appendingPathComponent("gateway.yaml")
        try gateway.replacingOccurrences(of: "  replicas: 2", with: "  replicaz: 2").write(to: brokenManifest, atomically: true, encoding: .utf8)
        #expect(try await validate(try kubernetes, [brokenManifest.path]).0 != 0)

        let composeText = try String(contentsOfFile: Self.root.appendingPathComponent("docker-compose.yml").path, encoding: .utf8)
        let brokenCompose = folder.appendingPathComponent("docker-compose.yml")
        try composeText.replacingOccurrences(of: "    healthcheck:\n      test: [\"CMD\", \"pg_isready\"", with: "    healthchek:\n      test: [\"CMD\", \"pg_isready\"")
            .write(to: brokenCompose, atomically: true, encoding: .utf8)
        #expect(try await validate(try compose, [brokenCompose.path]).0 != 0)
    }

    @Test func containersRunEveryServiceAndOnlyExecutablesTheImageBuilds() async throws {
        let built = try await products()
        #expect(built == Set(["broker", "gateway", "melon"] + MelonServices.all.map(\.name)), "the image builds each service: \(built.sorted())")
        for product in built {
            #expect(FileManager.default.isExecutableFile(atPath: BuildProducts.path(product)), "\(product) is not an executable the package builds")
        }

        var commands: [String] = []
        for path in try await manifests() + [Self.root.appendingPathComponent("docker-compose.yml").path] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for match in text.matches(of: /\n\s+command: \["([a-z-]+)"\]/) { commands.append(String(match.1)) }
        }
        for command in commands { #expect(built.contains(command), "\(command) runs in a container but the image does not build it") }
        for service in MelonServices.all {
            #expect(commands.count { $0 == service.name } == 2, "\(service.name) runs in compose and in Kubernetes")
        }
    }
}
}
