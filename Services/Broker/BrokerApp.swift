import Bus
import Foundation
import ServiceCatalog
import ServiceSupport
import ZeroMQ

/// `broker`: the Majordomo broker every Melon process connects to, and the live-event proxy.
@main
struct BrokerApp {
    static func main() async throws {
        if CommandLine.arguments.dropFirst().first == "keys" { return printKeys(for: Array(CommandLine.arguments.dropFirst(2))) }
        let (settings, logger) = ProcessBootstrap.start(
            process: "broker",
            summary: "routes bus requests to service workers (ZeroMQ RFC 7 Majordomo, RFC 8 MMI) and proxies live events; `broker keys [name...]` prints new CurveZMQ keys (by default for the gateway and every service).",
            settings: Setting.brokerSettings)
        let configuration = ProcessBootstrap.require({ try settings.brokerConfiguration(rights: BusPolicy.rights(of:)) }, process: "broker")
        for member in configuration.access?.members.values ?? [:].values where !BusPolicy.isKnown(member.name) {
            logger.warning("a bus member that is neither the gateway nor a Melon service gets a service's rights", metadata: ["member": "\(member.name)"])
        }
        let broker = ProcessBootstrap.require({ try Broker(configuration: configuration, logger: logger) }, process: "broker")
        try await ProcessBootstrap.run([broker], readiness: [], settings: settings, logger: logger)
    }

    /// `broker keys [name...]`: a new key pair for the broker and for each member named (by default
    /// the gateway and every service of the catalog), as lines of an environment file (single-quoted:
    /// Z85 has `$` and `#`): each process's `<NAME>_BUS_SECRET_KEY` (its BUS_SECRET_KEY), the broker's
    /// public key every member sets as BUS_BROKER_KEY, and the broker's BUS_MEMBERS.
    static func printKeys(for given: [String]) {
        let names = given.isEmpty ? [BusPolicy.gateway] + ServiceCatalog.services.map { $0.name } : given
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty && $0.allSatisfy(allowed.contains) }), Set(names).count == names.count else {
            FileHandle.standardError.write(Data("usage: broker keys [name...] (distinct names of a-z, 0-9 and -: gateway, auth, pdf-email, ...)\n".utf8))
            exit(64)
        }
        do {
            let broker = try CurveKeyPair.generate()
            let members = try names.map { ($0, try CurveKeyPair.generate()) }
            func variable(_ name: String) -> String { name.uppercased().replacingOccurrences(of: "-", with: "_") + "_BUS_SECRET_KEY" }
            var lines = ["BROKER_BUS_SECRET_KEY='\(broker.secretKey)'", "BUS_BROKER_KEY='\(broker.publicKey)'"]
            lines += members.map { "\(variable($0.0))='\($0.1.secretKey)'" }
            lines.append("BUS_MEMBERS='" + members.map { "\($0.0):\($0.1.publicKey)" }.joined(separator: ",") + "'")
            print(lines.joined(separator: "\n"))
        } catch {
            FileHandle.standardError.write(Data("broker keys: \(error)\n".utf8))
            exit(1)
        }
    }
}
