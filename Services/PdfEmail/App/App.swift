import PdfEmailService
import ServiceKit

/// `pdf-email`: serves `pdf-email.mail.*` and delivers the queued mail. Run as many as needed:
/// they share the queue in PostgreSQL and never send one mail twice.
@main
struct PdfEmailApp {
    static func main() async throws {
        try await ServiceHost.main(.pdfEmail)
    }
}
