import Bus
import Envelope
import Foundation
import GatewayService
import MelonServices
import ServiceCatalog
import ServiceLifecycle
import AuthService
import RefundCalculatorService
import ServiceKit
import ServiceSupport
import Testing
import TestSupport

/// The sign-up stack over real HTTP: the gateway (verifying tokens) in the test process, `auth` (or, with
/// `movingTime`, auth in the test process on a clock the test moves) and a `pdf-email` process on a broker and a fresh database, and an SMTP server catching the codes;
/// with `refundCalculator`, the refund calculator too, built from its definition in the test
/// process with today pinned to `AuthStack.today` (its rules cover a window of years around it).
struct AuthStack {
    let broker: Broker
    let gateway: any Service
    let address: GatewayAddress
    let databaseURL: String
    let sink: SMTPSink
    let mail: ChildProcess
    /// auth as a process of its own (its metrics and probes its own), or with `movingTime` in the
    /// test process on `clock`, so a test moves its time (code and token lifetimes, back-offs)
    /// instead of sleeping.
    let auth: ChildProcess?
    let authInProcess: RunningService?
    let clock = MovableClock()
    let refunds: RunningService?
    /// A `notifications` process, when the stack was asked for one.
    let notifications: ChildProcess?
    /// A `tax-form` process, when the stack was asked for one.
    let taxForm: ChildProcess?
    /// The URL tax-form signs in with: a role of its own that owns its schema alone (deploy/service-role.sh).
    let taxFormDatabaseURL: String?
    /// With `everyService`, a process for each service of `MelonServices.all` not started otherwise.
    let others: [ChildProcess]
    /// With `curve`, every process's bus key (the gateway's, each service's, and `tester`, the test's own client).
    let keys: BusKeys?
    let keyEncryptionKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    let taxFormKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()

    /// Where the refund calculator mails contact requests.
    static let refundCompany = "refunds@redoak.example"
    /// The day the refund tests are written for: the refund window is 2022 to 2026.
    static let today = RFC3339.date(from: "2026-11-21T14:00:00Z")!

    init(authEnvironment: [String: String] = [:], refundCalculator: [String: String]? = nil, notifications: [String: String]? = nil,
         taxForm: Bool = false, everyService: Bool = false, curve: Bool = false, movingTime: Bool = false,
         configureGateway: (inout GatewayConfiguration) -> Void = { _ in }) async throws {
        // With `curve`, as deployed: the bus encrypted, each process a member with its own key and the
        // rights BusPolicy gives its name; a service calling another on a user's behalf must then do
        // it as a service (the account in the request), which the broker lets through.
        let keys = curve ? try BusKeys(names: [BusPolicy.gateway, "tester"] + MelonServices.all.map(\.name)) : nil
        self.keys = keys
        // Up to six processes start together on 2 cores (pdf-email prepares its PDF blanks with qpdf,
        // tax-form loads its data): a worker starved for 750 ms must not be taken for dead, so the
        // broker waits 2 s of silence (CI once saw three auth workers expire under one request).
        broker = try BusHarness.broker(heartbeat: .init(interval: .milliseconds(250), liveness: 8), events: true) {
            $0.access = keys?.access(rights: BusPolicy.rights(of:))
        }
        (gateway, address) = try Self.gateway(on: broker, keys: keys, clock: clock.clock, configure: configureGateway)
        databaseURL = try await TestDatabase.freshDatabase()
        sink = try await SMTPSink()
        let common = [
            "BROKER_ENDPOINT": broker.endpoint, "EVENTS_PUBLISH_ENDPOINT": broker.eventsPublishEndpoint!, "HEARTBEAT_INTERVAL": "250",
            "DATABASE_URL": databaseURL,
        ]
        // Each service signs in as a role of its own that owns its schema alone (deploy/service-role.sh),
        // as deployed: a service reaching into another's tables fails here.
        let database = databaseURL
        func ownURL(_ schema: String) async throws -> String {
            try await TestDatabase.serviceRole(schema + "_" + (URLComponents(string: database)?.path.dropFirst() ?? ""), schema: schema, on: database)
        }
        func bus(_ name: String) -> [String: String] { keys?.environment(name) ?? [:] }
        mail = try ChildProcess(product: "pdf-email", environment: common.merging(bus("pdf-email")) { $1 }.merging([
            "SMTP_URL": "smtp://127.0.0.1:\(sink.port)", "MAIL_FROM": "Melon <no-reply@melon.example>", "MAIL_RETRY_FIRST": "200",
            "PDF_EMAIL_DATABASE_URL": try await ownURL("pdf_email"),
        ]) { $1 })
        let authVariables = common.merging(bus("auth")) { $1 }.merging([
            "AUTH_KEY_ENCRYPTION_KEY": keyEncryptionKey, "AUTH_DATABASE_URL": try await ownURL("auth"),
        ]) { $1 }.merging(authEnvironment) { $1 }
        if movingTime {
            let settings = ProcessSettings(
                process: "auth", settings: ServiceDefinition.auth.processSettings, arguments: [],
                environment: ["BUS_CURVE": "off"].merging(authVariables) { $1 })
            (auth, authInProcess) = (nil, try RunningService(.auth, settings: settings, logger: BusHarness.logger("auth"), maximumConnections: 8, clock: clock.clock))
        } else {
            (auth, authInProcess) = (try ChildProcess(product: "auth", environment: authVariables), nil)
        }
        if let notifications {
            let own = try await ownURL("notifications")
            self.notifications = try ChildProcess(product: "notifications", environment: common.merging(bus("notifications")) { $1 }.merging(["NOTIFICATIONS_DATABASE_URL": own]) { $1 }
                .merging(notifications) { $1 })
        } else {
            self.notifications = nil
        }
        if taxForm {
            let ownURL = try await ownURL("tax_form")
            taxFormDatabaseURL = ownURL
            self.taxForm = try ChildProcess(product: "tax-form", environment: common.merging(bus("tax-form")) { $1 }.merging([
                "TAX_FORM_KEY": taxFormKey, "TAX_FORM_DATABASE_URL": ownURL, "TAX_FORM_FILLS_PER_HOUR": "6",
            ]) { $1 })
        } else {
            (taxFormDatabaseURL, self.taxForm) = (nil, nil)
        }
        // Every other service from its definition alone: its required settings' local values, its
        // own role, and its folders under a temporary one; a new service is started (and fuzzed) here
        // without a line of its own.
        var started: Set<String> = ["auth", "pdf-email"]
        if notifications != nil { started.insert("notifications") }
        if taxForm { started.insert("tax-form") }
        if refundCalculator != nil { started.insert("refund-calculator") }
        var others: [ChildProcess] = []
        for definition in MelonServices.all where everyService && !started.contains(definition.name) {
            var environment = common.merging(definition.localEnvironment()) { $1 }.merging(bus(definition.name)) { $1 }
            if let schema = definition.schema { environment[Setting.databaseURL(service: definition.name).environmentName] = try await ownURL(schema) }
            for directory in definition.deployment.scratch {
                let local = FileManager.default.temporaryDirectory.appendingPathComponent("melon-\(directory.volume)-\(UUID().uuidString)").path
                try FileManager.default.createDirectory(atPath: local, withIntermediateDirectories: true)
                for (name, value) in directory.environment { environment[name] = value.replacingOccurrences(of: directory.path, with: local) }
            }
            others.append(try ChildProcess(product: definition.name, environment: environment))
        }
        self.others = others
        refunds = try refundCalculator.map { environment in
            let settings = ProcessSettings(
                process: "refund-calculator", settings: ServiceDefinition.refundCalculator.processSettings, arguments: [],
                environment: common.merging(["REFUND_CONTACT_EMAIL": Self.refundCompany, "WORKERS": "4", "BUS_CURVE": "off"]) { $1 }
                    .merging(bus("refund-calculator")) { $1 }.merging(environment) { $1 })
            return try RunningService(
                .refundCalculator, settings: settings, logger: BusHarness.logger("refund-calculator"), maximumConnections: 4, clock: .fixed(Self.today))
        }
    }

    /// A gateway verifying tokens on `broker`'s bus, hearing its live events; the tests connect as a
    /// trusted proxy would, posing as different clients with X-Forwarded-For.
    static func gateway(
        on broker: Broker, keys: BusKeys? = nil, clock: ServiceClock = .system, configure: (inout GatewayConfiguration) -> Void = { _ in }
    ) throws -> (any Service, GatewayAddress) {
        try GatewayHarness.gateway(broker.endpoint, services: ServiceCatalog.services, verifyTokens: true, events: broker.eventsEndpoint, keys: keys, clock: clock) {
            $0.trustedProxies = [IPNetwork("127.0.0.1/32")!]
            configure(&$0)
        }
    }

    /// Runs `body` with an HTTP client once both services have workers.
    func with(_ body: (HTTPTestClient) async throws -> Void) async throws {
        let probe = try BusHarness.client(broker.endpoint) { $0.credentials = keys?.credentials("tester") }
        try await BusHarness.with([broker, gateway, probe] + (authInProcess?.services ?? []) + (refunds?.services ?? [])) {
            #expect(await BusHarness.waitForService("auth", client: probe, timeout: .seconds(30)), "\(auth?.output ?? "")")
            #expect(await BusHarness.waitForService("pdf-email", client: probe, timeout: .seconds(30)), "\(mail.output)")
            if let notifications {
                #expect(await BusHarness.waitForService("notifications", client: probe, timeout: .seconds(30)), "\(notifications.output)")
            }
            if let taxForm {
                #expect(await BusHarness.waitForService("tax-form", client: probe, timeout: .seconds(30)), "\(taxForm.output)")
            }
            if let refunds {
                #expect(await BusHarness.waitForService("refund-calculator", client: probe, timeout: .seconds(30)), "\(refunds.definition.name)")
            }
            for other in others {
                #expect(await BusHarness.waitForService(other.name, client: probe, timeout: .seconds(30)), "\(other.output)")
            }
            try await body(try await address.client())
        }
    }

    /// The newest verification code mailed to `address`, waiting for it to arrive.
    func code(for address: String, after count: Int = 0, timeout: Duration = .seconds(60)) async throws -> String {
        let arrived = await eventually(timeout: timeout) { try mailCount(to: address) > count }
        try #require(arrived, "no code mailed to \(address)")
        let text = try await SMTPSink.inspect(try mails(to: address).last!)["text"] as? String ?? ""
        return try #require(text.firstMatch(of: /\sis ([0-9]{6})\./).map { String($0.1) }, "no code in: \(text)")
    }

    /// How many mails went to `address`.
    func mailCount(to address: String) throws -> Int {
        try mails(to: address).count
    }

    /// The mails that went to `address` alone, as the sink caught them.
    func mails(to address: String) throws -> [URL] {
        try sink.messages().filter { try (SMTPSink.envelope(of: $0)["to"] as? [String]) == [address] }
    }
}

extension HTTPTestClient {
    /// POSTs `json`, with `token` as the bearer and `ip` as the client address the proxy reports.
    func post(_ path: String, _ json: JSONValue, token: String? = nil, from ip: String? = nil) async throws -> Reply {
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        if let ip { headers["X-Forwarded-For"] = ip }
        return try await post(path, json: String(decoding: json.encoded(), as: UTF8.self), headers: headers)
    }
}
