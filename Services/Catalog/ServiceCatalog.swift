import AuthContract
import Contracts
import NotificationsContract
import PdfEmailContract
import RefundCalculatorContract
import TaxFormContract

/// Every product service's contract: what the gateway routes and documents, where auth sends an
/// account's erasure, and what the contract tests check. A new service joins with one line here.
public enum ServiceCatalog {
    public static let services: [any ServiceContract.Type] = [
        Auth.self,
        Notifications.self,
        PdfEmail.self,
        RefundCalculator.self,
        TaxForm.self,
    ]

    /// Every operation of every service.
    public static var operations: [any OperationDeclaration.Type] { services.flatMap { $0.operations } }

    /// The erase operation of every service that keeps personal data.
    public static var erasures: [any AccountEraseOperation.Type] { services.compactMap { $0.erase } }
}
