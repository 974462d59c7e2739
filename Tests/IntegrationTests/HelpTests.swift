import MelonServices
import ServiceKit
import Testing
import TestSupport

extension ServiceStackTests {
/// What each service's executable says it reads.
@Suite(.timeLimit(.minutes(10))) struct HelpTests {
    /// `--help` lists the same settings the tables show: both come from the definition.
    @Test func helpListsEverySettingOfTheService() async throws {
        for definition in MelonServices.all {
            let product = definition.name
            let help = try ChildProcess(executable: BuildProducts.path(product), arguments: ["--help"], name: product)
            #expect(await help.wait(timeout: .seconds(30)) == 0)
            for setting in definition.processSettings {
                #expect(help.output.contains("\(setting.flag) <value>   (env \(setting.environmentName))"), "\(product) --help lacks \(setting.key)")
            }
        }
    }
}
}
