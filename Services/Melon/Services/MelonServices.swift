import AuthService
import NotificationsService
import PdfEmailService
import RefundCalculatorService
import ServiceKit
import TaxFormService

/// Every product service's definition, in start order: what `melon` runs in one process and what the
/// contract tests and the integration harness build. A new service joins with one line here (and
/// one in `ServiceCatalog`, its contract; a test checks the two lists agree).
public enum MelonServices {
    public static let all: [ServiceDefinition] = [.pdfEmail, .notifications, .auth, .refundCalculator, .taxForm]
}
