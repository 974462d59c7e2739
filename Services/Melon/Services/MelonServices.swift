import AuthService
import HouseholdService
import MarketplaceChatService
import NotificationsService
import PaymentsService
import PdfEmailService
import RefundCalculatorService
import ServiceKit
import TaxFormService

/// Every product service's definition, in start order: the one list of services. `melon` runs them
/// in one process; the contract tests, the integration stacks and the fuzzing build them; the
/// catalog, the compose file, the Kubernetes manifests, run.sh and the README's table are made from
/// it (`DeployFilesTests`). A new service joins with one line here and one call in Package.swift.
public enum MelonServices {
    public static let all: [ServiceDefinition] = [.pdfEmail, .notifications, .auth, .refundCalculator, .taxForm, .household, .marketplaceChat, .payments]

    /// A value for every required setting of every service, as run.sh gives them (new keys each call).
    public static func localEnvironment() -> [String: String] {
        all.reduce(into: [:]) { $0.merge($1.localEnvironment()) { first, _ in first } }
    }
}
