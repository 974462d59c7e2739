// Made from MelonServices.all by DeployFilesTests (MELON_WRITE_DOCS=1 swift test --filter DeployFilesTests): do not edit.
import AuthContract
import Contracts
import HouseholdContract
import MarketplaceChatContract
import NotificationsContract
import PaymentsContract
import PdfEmailContract
import RefundCalculatorContract
import TaxFormContract

extension ServiceCatalog {
    public static let services: [any ServiceContract.Type] = [
        Auth.self,
        Household.self,
        MarketplaceChat.self,
        Notifications.self,
        Payments.self,
        PdfEmail.self,
        RefundCalculator.self,
        TaxForm.self,
    ]
}
