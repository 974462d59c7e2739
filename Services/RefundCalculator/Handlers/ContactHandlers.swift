import Bus
import RefundCalculatorContract
import Contracts
import PdfEmailContract
import Envelope
import Foundation
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// `refund-calculator.contact-request.create.v1`: a user asks the refund company to call. The
/// request is stored and both mails (to the company, and the user's confirmation) are queued for
/// pdf-email in the same transaction, so an accepted request is always mailed, and only once.
struct ContactHandlers: Sendable {
    let database: Database
    let contacts: ContactRequestPostgresRepository
    let estimates: EstimateHandlers
    let configuration: RefundCalculatorConfiguration
    /// The service's clock: the limits count on it.
    let now: @Sendable () -> Date

    /// The requests an address may make in a day (the kit's limiter counts them).
    var perEmail: RateLimit {
        RateLimit(
            "contacts.per.email", count: configuration.contactsPerEmail, per: .seconds(86_400),
            message: "this address has asked to be contacted \(configuration.contactsPerEmail) times today; the refund company will be in touch")
    }

    /// The requests a client network (an IPv4 address, an IPv6 /64) may make in a day.
    var perNetwork: RateLimit {
        RateLimit("contacts.per.network", count: configuration.contactsPerIP, per: .seconds(86_400), message: "too many contact requests from this network today; try again later")
    }

    /// The key an address's requests count against (the limiter keeps its hash alone).
    static func emailKey(_ email: String) -> RateLimitKey { .other("email:" + email) }

    /// A contact request checked, with its estimate, ready to store.
    struct Checked: Sendable {
        let request: RefundCalculator.ContactRequest.Create.Request
        let email: String
        let estimate: RefundCalculator.Estimate
    }

    /// Outside the transaction: every field checked and the estimate made.
    @Sendable
    func prepare(_ request: RefundCalculator.ContactRequest.Create.Request, _ context: RequestContext) async throws -> Checked {
        var request = request
        request.name = request.name.trimmingCharacters(in: .whitespaces)
        request.phone = request.phone.trimmingCharacters(in: .whitespaces)
        let email = EmailAddress.normalized(request.email)
        var validation = Validation()
        validation.checkName(request.name, "data.name")
        if let problem = EmailAddress.problem(email) { validation.fail("data.email", problem) }
        validation.check(Self.isPhoneNumber(request.phone), "data.phone", "must be 7 to 15 digits, optionally with a leading + and spaces, dashes or brackets")
        let checked = try estimates.estimate(nested: request.scenario, &validation)
        try validation.finish()
        guard let estimate = checked else { throw OperationError(.internal, "the scenario was refused without naming a field") }
        return Checked(request: request, email: email, estimate: estimate)
    }

    /// In the transaction that records the reply: within the limits, the request is stored and both
    /// mails are queued.
    @Sendable
    func create(_ checked: Checked, _ context: RequestContext, on connection: PostgresConnection) async throws
        -> RefundCalculator.ContactRequest.Create.Response
    {
        let email = checked.email, clientIP = context.attributes.clientIP
        try await database.hit(perEmail, [Self.emailKey(email)], at: now(), on: connection)
        if let network = clientIP.flatMap(ClientNetwork.key) { try await database.hit(perNetwork, [.network(network)], at: now(), on: connection) }
        let id = UUID()
        try await contacts.insert(.init(id: id, request: checked.request, email: email, estimate: checked.estimate, clientIP: clientIP), on: connection)
        try await mail(checked.request, email: email, estimate: checked.estimate, id: id, on: connection)
        // No name, address or phone in logs: the id leads to them in the database.
        context.logger.info("contact request received", metadata: ["contact_request": "\(id)", "tax_year": "\(checked.estimate.taxYear)"])
        return .init(id: id.uuidString.lowercased(), status: "received", estimate: checked.estimate)
    }

    /// The request to the company (replies go to the user) and the confirmation to the user.
    private func mail(_ request: RefundCalculator.ContactRequest.Create.Request, email: String, estimate: RefundCalculator.Estimate, id: UUID,
                      on connection: PostgresConnection) async throws {
        let summary = Self.summary(estimate), key = id.uuidString.lowercased()
        let time = Self.preferredTimes[request.preferredTime]!
        try await database.enqueue(
            PdfEmail.Mail.Send.self,
            .init(to: [configuration.contactEmail], replyTo: email, template: .init(name: "refund-contact-request", variables: [
                "name": request.name, "email": email, "phone": request.phone, "preferredTime": time, "summary": summary,
            ])),
            on: connection, idempotencyKey: "contact-\(key)")
        try await database.enqueue(
            PdfEmail.Mail.Send.self,
            .init(to: [email], template: .init(name: "refund-contact-confirmation", variables: [
                "name": request.name, "phone": request.phone, "preferredTime": time, "summary": summary,
            ])),
            on: connection, idempotencyKey: "contact-confirmation-\(key)")
    }

    static let preferredTimes: [RefundCalculator.ContactRequest.PreferredTime: String] = [
        .morning: "in the morning", .afternoon: "in the afternoon", .evening: "in the evening", .anytime: "at any time",
    ]

    /// The estimate as plain text for the mails: the result, then each line with its rule.
    static func summary(_ estimate: RefundCalculator.Estimate) -> String {
        let outcome = estimate.refundCents >= 0
            ? "Estimated refund for \(estimate.taxYear): \(EuroText.format(cents: estimate.refundCents))"
            : "Estimated underpayment for \(estimate.taxYear): \(EuroText.format(cents: -estimate.refundCents))"
        var lines = [outcome, ""]
        lines += estimate.lines.map { "\($0.label): \(EuroText.format(cents: $0.amountCents))" }
        if !estimate.warnings.isEmpty { lines += [""] + estimate.warnings.map { "Note: \($0.message)" } }
        if !estimate.missing.isEmpty { lines += ["", "Not answered yet: \(estimate.missing.joined(separator: ", "))"] }
        lines += ["", "Rules version \(estimate.rulesVersion)"]
        return lines.joined(separator: "\n")
    }

    /// 7 to 15 digits (E.164 at most); its characters and length are the schema's (`phoneLength`).
    static func isPhoneNumber(_ text: String) -> Bool {
        return (7...15).contains(text.filter(\.isASCII).filter(\.isNumber).count)
    }
}
