import Foundation
import Testing
import TestSupport

/// No Docker engine or cluster runs here, so the deploy files are checked against their schemas
/// (the Compose specification, the Kubernetes OpenAPI schemas) and against the package: a typo or a
/// container running an executable the image does not build fails the suite.
@Suite struct DeployManifestTests {
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

    private var manifests: [String] {
        get throws {
            try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("deploy/k8s").path)
                .filter { $0.hasSuffix(".yaml") }.sorted().map { Self.root.appendingPathComponent("deploy/k8s/\($0)").path }
        }
    }

    @Test func theKubernetesManifestsMatchTheirSchemas() async throws {
        let (status, output) = try await validate(try kubernetes, try manifests)
        #expect(status == 0, "\(output)")
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

    @Test func containersRunOnlyExecutablesTheImageBuilds() throws {
        let dockerfile = try String(contentsOfFile: Self.root.appendingPathComponent("deploy/Dockerfile").path, encoding: .utf8)
        let line = try #require(dockerfile.split(separator: "\n").first { $0.hasPrefix("ARG PRODUCTS=") })
        let built = Set(line.dropFirst("ARG PRODUCTS=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")).split(separator: " ").map(String.init))
        let package = try String(contentsOfFile: Self.root.appendingPathComponent("Package.swift").path, encoding: .utf8)
        for product in built { #expect(package.contains(".executable(name: \"\(product)\""), "\(product) is not a product") }

        var commands: [String] = []
        for path in try manifests + [Self.root.appendingPathComponent("docker-compose.yml").path] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for match in text.matches(of: /\n\s+command: \["([a-z-]+)"\]/) { commands.append(String(match.1)) }
        }
        #expect(!commands.isEmpty)
        for command in commands { #expect(built.contains(command), "\(command) runs in a container but the image does not build it") }
    }
}
