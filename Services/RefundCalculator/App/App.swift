import RefundCalculatorService
import ServiceKit

/// `refund-calculator`: Irish PAYE refund estimates, help text, saved scenarios and contact
/// requests. Run as many as needed.
@main
struct RefundCalculatorApp {
    static func main() async throws {
        try await ServiceHost.main(.refundCalculator)
    }
}
