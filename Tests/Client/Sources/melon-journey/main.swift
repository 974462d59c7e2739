// A client developer's journey through Melon with the generated client: sign up (the code read from
// the mail spool), verify, log in, refresh, estimate a refund, save scenarios and list them in pages,
// and read refusals as typed problems. Usage: melon-journey BASE-URL MAIL-SPOOL-FOLDER
// Prints one line per step; exits 1 at the first step that does not hold.
import Foundation
import MelonAPI
import OpenAPIRuntime
import OpenAPIURLSession

let arguments = CommandLine.arguments
guard arguments.count == 3, let server = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: melon-journey BASE-URL MAIL-SPOOL-FOLDER\n".utf8))
    exit(64)
}
let spool = URL(fileURLWithPath: arguments[2])

/// Melon writes dates as RFC 3339 with milliseconds.
let configuration = Configuration(dateTranscoder: .iso8601WithFractionalSeconds)
let session = BearerToken()
let client = Client(serverURL: server, configuration: configuration, transport: URLSessionTransport(), middlewares: [session])
let anonymous = Client(serverURL: server, configuration: configuration, transport: URLSessionTransport())

struct StepFailed: Error, CustomStringConvertible {
    var description: String
}

func check(_ holds: Bool, _ what: @autoclosure () -> String) throws {
    if !holds { throw StepFailed(description: what()) }
}

func step(_ name: String, _ body: () async throws -> String) async {
    do {
        print("ok \(name): \(try await body())")
    } catch {
        print("FAILED \(name): \(error)")
        exit(1)
    }
}

// Anyone: the rules version and the tax years an estimate may be for.
await step("rules") {
    let rules = try await anonymous.refundsRules().ok.body.json
    try check(!rules.taxYears.isEmpty && rules.taxYears.contains(rules.defaultTaxYear), "years \(rules.taxYears), default \(rules.defaultTaxYear)")
    return "version \(rules.version), years \(rules.taxYears.map(String.init).joined(separator: ", "))"
}

let tag = UUID().uuidString.prefix(8).lowercased()
let email = "journey-\(tag)@tcd.ie", password = "a long walk by the Liffey"
var registration = ""
await step("register") {
    let reply = try await anonymous.authRegister(body: .json(.init(displayName: "Journey", email: email, password: password, username: "journey_\(tag)")))
    registration = try reply.accepted.body.json.registration
    return "registration \(registration)"
}

var code = ""
await step("mail") {
    code = try await MailSpool(folder: spool).code(to: email, within: .seconds(30))
    return "a code reached the spool"
}

await step("verify") {
    let verified = try await anonymous.authVerifyEmail(body: .json(.init(code: code, email: email, registration: registration))).ok.body.json
    try check(verified.verified, "not verified")
    return "verified"
}

var refreshToken = ""
await step("login") {
    let tokens = try await anonymous.authLogin(body: .json(.init(app: .refunds, email: email, password: password))).ok.body.json
    try check(tokens.tokenType == .bearer && tokens.expiresIn > 0, "tokens \(tokens.tokenType) for \(tokens.expiresIn) s")
    session.set(tokens.accessToken)
    refreshToken = tokens.refreshToken
    return "a token for \(tokens.expiresIn) s"
}

await step("refresh") {
    let tokens = try await anonymous.authRefresh(body: .json(.init(refreshToken: refreshToken))).ok.body.json
    try check(tokens.refreshToken != refreshToken, "the same refresh token again")
    session.set(tokens.accessToken)
    return "new tokens"
}

// Anyone: the reference's worked example (2024, 43,200 with 5,500 paid: a refund of 370).
let answers = Components.Schemas.RefundCalculatorScenario(salaryCents: 43_200_00, status: .single, taxPaidCents: 5_500_00, taxYear: 2024)
await step("estimate") {
    let estimate = try await anonymous.refundsEstimate(body: .json(answers)).ok.body.json
    try check(estimate.refundCents == 370_00 && estimate.currency == .eur, "refund \(estimate.refundCents) \(estimate.currency)")
    try check(estimate.lines.contains { $0.kind == .band }, "no band lines: \(estimate.lines)")
    try check(estimate.lines.allSatisfy { estimate.sources.indices.contains($0.source) }, "a line's source is not among \(estimate.sources)")
    return "refund \(estimate.refundCents) cents, \(estimate.lines.count) lines"
}

// The owner: three saved scenarios, listed two to a page.
var saved: [String] = []
await step("save") {
    for name in ["2024 job", "2024 second look", "2024 with rent"] {
        let scenario = try await client.refundsScenarioSave(
            headers: .init(idempotencyKey: "journey-\(tag)-\(name.count)"), body: .json(.init(name: name, scenario: answers))
        ).created.body.json
        try check(scenario.estimate?.refundCents == 370_00, "saved without its estimate: \(scenario)")
        saved.append(scenario.id)
    }
    return "\(saved.count) scenarios"
}

await step("list in pages") {
    let first = try await client.refundsScenariosList(query: .init(limit: 2)).ok.body.json
    var next: Components.Schemas.RefundCalculatorScenarioListResponse?
    if let after = first.nextAfter { next = try await client.refundsScenariosList(query: .init(limit: 2, after: after)).ok.body.json }
    let listed = first.scenarios.map(\.id) + (next?.scenarios.map(\.id) ?? [])
    try check(first.scenarios.count == 2 && next?.nextAfter == nil, "pages of \(first.scenarios.count) and \(next?.scenarios.count ?? 0)")
    try check(listed == saved.reversed(), "listed \(listed), saved \(saved) (newest first)")
    return "2 + \(next?.scenarios.count ?? 0), newest first"
}

await step("get") {
    let scenario = try await client.refundsScenarioGet(path: .init(id: saved[0])).ok.body.json
    try check(scenario.name == "2024 job" && scenario.estimate?.refundCents == 370_00, "\(scenario)")
    return "\(scenario.name), saved \(scenario.createdAt)"
}

// Signed in: members by username, with their public profile.
await step("search members") {
    let found = try await client.usersSearch(query: .init(q: "journey_\(tag)")).ok.body.json
    try check(found.users.map(\.username) == ["journey_\(tag)"], "found \(found.users.map(\.username))")
    return "\(found.users[0].displayName), joined \(found.users[0].joinedOn)"
}

// Refusals, as typed problems.
await step("invalid") {
    var bad = answers
    bad.salaryCents = -1
    let problem = try await anonymous.refundsEstimate(body: .json(bad)).badRequest.body.applicationProblemJson
    try check(problem.code == "invalid" && problem.fields?.map(\.field) == ["salaryCents"], "\(problem)")
    return "400 \(problem.code) naming \(problem.fields?.map(\.field) ?? [])"
}

await step("signed out") {
    let problem = try await anonymous.refundsScenariosList().unauthorized.body.applicationProblemJson
    return "401 \(problem.code)"
}

await step("someone else's") {
    let problem = try await client.refundsScenarioGet(path: .init(id: UUID().uuidString.lowercased())).notFound.body.applicationProblemJson
    return "404 \(problem.code)"
}

// Three roommates through the household routes: Ana (this journey's account), Ben and Cara.
/// Signs up `name` through the mail and logs in to the household app; a client acting as them and their account id.
func roommate(_ name: String) async throws -> (client: Client, account: String) {
    let address = "journey-\(name)-\(tag)@tcd.ie"
    let registration = try await anonymous.authRegister(
        body: .json(.init(displayName: name, email: address, password: password, username: "\(name)_\(tag)"))).accepted.body.json.registration
    let code = try await MailSpool(folder: spool).code(to: address, within: .seconds(30))
    _ = try await anonymous.authVerifyEmail(body: .json(.init(code: code, email: address, registration: registration))).ok.body.json
    let tokens = try await anonymous.authLogin(body: .json(.init(app: .household, email: address, password: password))).ok.body.json
    let bearer = BearerToken()
    bearer.set(tokens.accessToken)
    let me = try await Client(serverURL: server, configuration: configuration, transport: URLSessionTransport(), middlewares: [bearer]).meGet().ok.body.json
    return (Client(serverURL: server, configuration: configuration, transport: URLSessionTransport(), middlewares: [bearer]), me.id)
}

var household = "", members: [String: String] = [:]
var ben: Client?, cara: Client?
var refundsAccess: String?
await step("household") {
    // Ana signs in to the household app too: its routes refuse another app's session (a refunds one).
    refundsAccess = session.current
    let anaTokens = try await anonymous.authLogin(body: .json(.init(app: .household, email: email, password: password))).ok.body.json
    session.set(anaTokens.accessToken)
    let created = try await client.householdCreate(body: .json(.init(currency: .eur, name: "14 Pearse Street"))).created.body.json
    household = created.id
    let invite = try await client.householdInviteCreate(path: .init(householdId: household)).created.body.json
    let (benClient, benAccount) = try await roommate("ben"), (caraClient, caraAccount) = try await roommate("cara")
    (ben, cara) = (benClient, caraClient)
    _ = try await benClient.householdJoin(body: .json(.init(code: invite.code))).ok.body.json
    let joined = try await caraClient.householdJoin(body: .json(.init(code: invite.code))).ok.body.json
    for member in joined.members { members[member.accountId == benAccount ? "ben" : member.accountId == caraAccount ? "cara" : "ana"] = member.memberId }
    try check(joined.members.count == 3 && members.count == 3, "members \(joined.members)")
    return "3 members, code \(invite.code)"
}

await step("shopping list") {
    guard let ben, let cara else { throw StepFailed(description: "no roommates") }
    _ = try await client.householdGroceryAdd(path: .init(householdId: household, list: .personal), body: .json(.init(name: "Oat milk"))).created
    _ = try await ben.householdGroceryAdd(path: .init(householdId: household, list: .personal), body: .json(.init(name: "Coffee", _private: true))).created
    _ = try await cara.householdGroceryAdd(path: .init(householdId: household, list: .communal), body: .json(.init(name: "Toilet roll"))).created
    let list = try await ben.householdShoppingList(path: .init(householdId: household)).ok.body.json
    let names = list.groups.map { $0.items.map(\.name) }
    try check(names == [["Toilet roll"], ["Oat milk"]], "groups \(names): the communal first, Ben's private coffee left out")
    return "\(list.groups.count) groups"
}

await step("bill and balances") {
    let bill = try await client.householdBillCreate(
        path: .init(householdId: household), body: .json(.init(amount: .init(currency: .eur, minorUnits: 1000), title: "Electricity"))).created.body.json
    let shares = bill.shares.map(\.amount.minorUnits)
    try check(shares == [334, 333, 333], "shares \(shares): ten euro three ways, the cent to the first")
    let balances = try await client.householdBalances(path: .init(householdId: household)).ok.body.json
    let transfers = balances.currencies.first?.transfers ?? []
    try check(balances.simplified && transfers.count == 2 && transfers.allSatisfy { $0.to == members["ana"] }, "transfers \(transfers)")
    return "\(transfers.count) transfers to Ana"
}

await step("settle up once") {
    guard let ben else { throw StepFailed(description: "no roommates") }
    let body = Operations.HouseholdSettle.Input.Body.json(.init(amount: .init(currency: .eur, minorUnits: 333), reference: "Revolut", to: members["ana"]))
    let first = try await ben.householdSettle(path: .init(householdId: household), headers: .init(idempotencyKey: "journey-settle-\(tag)"), body: body).created.body.json
    let again = try await ben.householdSettle(path: .init(householdId: household), headers: .init(idempotencyKey: "journey-settle-\(tag)"), body: body).created.body.json
    try check(first.id == again.id, "a retried settle-up recorded twice: \(first.id), \(again.id)")
    let confirmed = try await client.householdSettlementConfirm(path: .init(householdId: household, settlementId: first.id)).ok.body.json
    try check(confirmed.confirmedAt != nil, "not confirmed")
    let left = try await client.householdBalances(path: .init(householdId: household)).ok.body.json.currencies.first?.transfers ?? []
    try check(left.count == 1 && left.first?.from == members["cara"], "left \(left)")
    return "one settlement, confirmed; Cara's 3.33 left"
}

// Cara pays Ana her 3.33 in the app: payments charges her through the sandbox, and household hears
// of it through payments' outbox and records the settlement, confirmed.
await step("pay in the app") {
    guard let cara, let ana = members["ana"] else { throw StepFailed(description: "no roommates") }
    let body = Operations.SettleUpCreate.Input.Body.json(
        .init(amount: .init(currency: .eur, minorUnits: 333), householdId: household, paymentMethod: "pm_card_visa", to: ana))
    let paid = try await cara.settleUpCreate(headers: .init(idempotencyKey: "journey-pay-\(tag)"), body: body).created.body.json
    try check(paid.status == .succeeded && paid.processor == "sandbox", "\(paid.status) through \(paid.processor)")
    let start = ContinuousClock.now
    while !(try await client.householdBalances(path: .init(householdId: household)).ok.body.json.currencies.first?.transfers ?? []).isEmpty {
        try check(ContinuousClock.now - start < .seconds(10), "the payment did not reach the household's balances within 10 s")
        try await Task.sleep(for: .milliseconds(100))
    }
    return "3.33 through the sandbox; nobody owes Ana now"
}

await step("logout") {
    // The refunds app's session, whose refresh token the journey holds, is the one that ends.
    if let refundsAccess { session.set(refundsAccess) }
    _ = try await client.authLogout(body: .json(.init())).ok.body.json
    let problem = try await anonymous.authRefresh(body: .json(.init(refreshToken: refreshToken))).unauthorized.body.applicationProblemJson
    // The access token, though not expired, stops working within seconds (the gateway hears of the end).
    let loggedOut = ContinuousClock.now
    while case .ok = try await client.refundsScenariosList() {
        try check(ContinuousClock.now - loggedOut < .seconds(2), "the logged-out access token still works after 2 s")
        try await Task.sleep(for: .milliseconds(20))
    }
    let refused = try await client.refundsScenariosList().unauthorized.body.applicationProblemJson
    return "the session ended: refresh answers 401 \(problem.code), the access token 401 \(refused.code)"
}

print("journey done")
