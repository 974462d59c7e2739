import Foundation
import PdfEmailService
import Testing

@Suite(.timeLimit(.minutes(2))) struct MailTemplatesTests {
    static let templates = try! MailTemplates.bundled()

    @Test func theSixTemplatesShipWithTheirVariables() {
        #expect(Self.templates.templates.mapValues { $0.variables.sorted() } == [
            "verification-code": ["code", "minutes", "name"],
            "password-reset": ["code", "minutes", "name"],
            "tax-form-ready": ["deadline", "forms", "name", "protection", "taxYear"],
            "refund-contact-request": ["email", "name", "phone", "preferredTime", "summary"],
            "refund-contact-confirmation": ["name", "phone", "preferredTime", "summary"],
            "generic-notice": ["message", "title"],
        ])
    }

    @Test func valuesAreEscapedInHTMLAndKeptOnOneLineInTheSubject() throws {
        let rendered = try Self.templates.render("generic-notice", variables: [
            "title": "Rent <due>\r\nBcc: someone@example.org", "message": "Tom & Jerry's \"flat\" <script>",
        ])
        #expect(rendered.subject == "Rent <due>  Bcc: someone@example.org")
        #expect(rendered.text == "Tom & Jerry's \"flat\" <script>")
        #expect(rendered.html == "<h1>Rent &lt;due&gt;\r\nBcc: someone@example.org</h1>\n<p>Tom &amp; Jerry&#39;s &quot;flat&quot; &lt;script&gt;</p>")
    }

    @Test func aVerificationCodeFillsEveryPart() throws {
        let rendered = try Self.templates.render("verification-code", variables: ["name": "Aoife", "code": "493021", "minutes": "10"])
        #expect(rendered.subject == "Your Melon verification code: 493021")
        #expect(rendered.text.contains("your verification code is 493021. It is valid for 10 minutes."))
        #expect(rendered.html.contains("<strong>493021</strong>"))
    }

    @Test func unknownTemplatesAndMissingVariablesAreNamed() {
        #expect(throws: MailTemplates.Problem.unknownTemplate("welcome")) { try Self.templates.render("welcome", variables: [:]) }
        #expect(throws: MailTemplates.Problem.missingVariable("minutes")) {
            try Self.templates.render("password-reset", variables: ["name": "Aoife", "code": "1"])
        }
    }
}
