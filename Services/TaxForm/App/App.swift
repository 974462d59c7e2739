import ServiceKit
import TaxFormService

/// `tax-form`: the student tax interview and return. Run as many as needed.
@main
struct TaxFormApp {
    static func main() async throws {
        try await ServiceHost.main(.taxForm)
    }
}
