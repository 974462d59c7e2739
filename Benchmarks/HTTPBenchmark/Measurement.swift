import RefundCalculatorContract
import AuthService
import Bus
import Contracts
import Envelope
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import PostgresSupport
import RefundCalculatorService
import ServiceLifecycle
import TaxFormContract
import TaxFormService

/// The measuring part of the benchmark, run as the last service of the group: it waits for the stack,
/// measures, prints, and then ends the group.
struct Measurement: Service {
    let options: Options
    let database: Database
    let authDatabase: Database
    let bus: BusClient
    let port: @Sendable () -> Int?
    /// Starts the group's graceful shutdown (the path SIGTERM takes).
    let finish: @Sendable () async -> Void

    /// One measured series: requests per second and latency percentiles in microseconds.
    struct Figures { var rate: Double; var p50: Double; var p99: Double; var errors: Int }

    func run() async throws {
        try await database.migrate(BenchNotes.migrations)
        let base = try await waitForGateway()
        let seed = try await BenchNotes.put(database)(.init(text: "seed"), context(key: "seed"))
        say("benchmark: \(options.runs) runs of \(options.duration) s, \(options.connections) connections; seed note \(seed.id)")

        let login = #"{"email":"bench@tcd.ie","password":"a long walk by the Liffey","app":"melon"}"#
        try await givenAccount()
        let token = try await accessToken(base: base, login: login)
        let signedIn = ["Authorization": "Bearer \(token)"]
        // Argon2id takes ~30 ms of a core per login: a few connections keep both cores busy.
        let loginConnections = min(options.connections, 8)

        // A full answer (every credit and relief in play), the most work one estimate does.
        let scenario = #"{"taxYear":2024,"status":"married-two-incomes","dateOfBirth":"1958-03-02","dependentChildren":2,"salaryCents":6500000,"taxPaidCents":1400000,"profession":"nurse","tradeUnionMember":true,"otherIncomeCents":120000,"spouse":{"incomeCents":2100000,"taxPaidCents":250000,"dateOfBirth":"1960-07-14","profession":"teacher"},"home":{"rentPaidCents":1500000,"serviceChargesCents":20000},"expenses":{"medicalCents":240000,"nursingHomeCents":0,"tuition":{"feesCents":450000,"fullTime":true}}}"#
        let estimator = Estimator(rules: try RuleBook.bundled())
        let answers = try JSONDecoder().decode(RefundCalculator.Scenario.self, from: Data(scenario.utf8))
        _ = try estimator.estimate(answers)

        // A whole student return: an F-1 student from China with a W-2, the treaty claimed.
        let taxAnswers = #"{"citizen":false,"greenCard":"no","visa":"F","visa.entryDate":"2022-08-20","visa.changed":false,"visa.prior1":"F","visa.prior2":"F","visa.prior3":"none","visa.prior4":"none","visa.prior5":"none","visa.prior6":"none","visa.earlierYears":0,"days.thisYear":300,"days.lastYear":300,"days.twoYearsAgo":120,"income.any":true,"income.w2s":[{"employerName":"Campus Dining","employerEIN":"12-3456789","wagesCents":2000000,"federalWithheldCents":180000,"states":[{"state":"MA","wagesCents":2000000,"withheldCents":60000}]}],"income.scholarship":0,"income.scholarshipWithheld":0,"income.interest":1200,"income.other":false,"treaty.country":"CN","treaty.claim":true,"name.first":"Mei","name.last":"Chen","tin":"912-70-1234"}"#
        let engine = try InterviewEngine.bundled()
        let (studentAnswers, problems) = engine.checked(try JSONDecoder().decode(TaxForm.Answers.self, from: Data(taxAnswers.utf8)), year: 2024)
        guard problems.isEmpty, engine.assess(studentAnswers, year: 2024).forms.first?["35a"]?.dollars == 301 else {
            throw BenchmarkFailure(description: "the benchmark's tax answers do not give the expected return: \(problems)")
        }
        let preview = #"{"taxYear":2024,"answers":"# + taxAnswers + "}"

        var results: [String: [Figures]] = [:]
        var pdfSizes: [Int] = []
        for run in 1...options.runs {
            let get = BenchNotes.get(database)
            let put = BenchNotes.put(database)
            func measure(_ name: String, _ series: () async throws -> Figures) async rethrows {
                guard options.wants(name) else { return }
                await settle(before: name)
                results[name, default: []].append(try await series())
            }
            // The path on its own, to tell what the read over HTTP could reach: HTTP and the gateway's
            // edge (a probe it answers itself), the bus (a note answered without the database, called
            // in-process), and both (the same call over HTTP).
            try await measure("HTTP alone") { try await Wrk.run(url: "\(base)/healthz", options: options) }
            try await measure("bus alone") { await inProcess { _ = try await bus.call(BenchNotes.Ping.self, Empty()) } }
            try await measure("ping over HTTP") { try await Wrk.run(url: "\(base)/v1/bench/ping", options: options) }
            try await measure("read in-process") { await inProcess { _ = try await get(.init(id: seed.id), context(key: nil)) } }
            try await measure("read over HTTP") { try await Wrk.run(url: "\(base)/v1/bench/notes/\(seed.id)", options: options) }
            // Right after the anonymous read, before the writes change the table under both.
            try await measure("signed-in read") {
                try await Wrk.run(url: "\(base)/v1/bench/signed-in/notes/\(seed.id)", headers: signedIn, options: options)
            }
            try await measure("write in-process") { await inProcess { _ = try await put(.init(text: "note"), context(key: RandomID.uuid())) } }
            try await measure("write over HTTP") { try await Wrk.run(url: "\(base)/v1/bench/notes", body: #"{"text":"note"}"#, options: options) }
            try await measure("GET /v1/me") { try await Wrk.run(url: "\(base)/v1/me", headers: signedIn, options: options) }
            try await measure("login over HTTP") {
                try await Wrk.run(url: "\(base)/v1/auth/login", body: login, connections: loginConnections, options: options)
            }
            try await measure("estimate in-process") { await inProcess { _ = try estimator.estimate(answers) } }
            try await measure("estimate over HTTP") { try await Wrk.run(url: "\(base)/v1/refunds/estimate", body: scenario, options: options) }
            try await measure("tax return in-process") { await inProcess { _ = engine.assess(studentAnswers, year: 2024) } }
            try await measure("tax preview over HTTP") { try await Wrk.run(url: "\(base)/v1/tax/returns/preview", body: preview, options: options) }
            try await measure("return PDF over HTTP") {
                pdfSizes.append(try await readyReturn(base: base, token: token))
                return try await Wrk.run(url: "\(base)/v1/tax/returns/2024/pdf", headers: signedIn, options: options)
            }
            try await measure("tax answer over HTTP") { try await savedAnswers(base: base, token: token, full: taxAnswers) }
            say("run \(run) done")
        }
        report(results)
        if !pdfSizes.isEmpty { say("a filled return (the official 2024 Form 1040, 2 pages): \(pdfSizes.map(String.init).joined(separator: ", ")) bytes") }
        await finish()
    }

    private func waitForGateway() async throws -> String {
        while true {
            if let port = port() {
                let base = "http://127.0.0.1:\(port)"
                let ready = try? await URLSession.shared.data(from: URL(string: "\(base)/readyz")!)
                if (ready?.1 as? HTTPURLResponse)?.statusCode == 200 { return base }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private func context(key: String?) -> RequestContext {
        RequestContext(attributes: RequestAttributes(source: "urn:melon:bench", type: "bench", idempotencyKey: key),
                       logger: Logger(label: "bench"), bus: nil)
    }

    /// `options.connections` tasks calling `body` back to back for `options.duration` seconds.
    private func inProcess(_ body: @escaping @Sendable () async throws -> Void) async -> Figures {
        let end = ContinuousClock.now + .seconds(options.duration)
        let (latencies, errors) = await withTaskGroup(of: ([Double], Int).self) { group in
            for _ in 0..<options.connections {
                group.addTask {
                    var latencies: [Double] = []
                    var errors = 0
                    while ContinuousClock.now < end {
                        let started = ContinuousClock.now
                        do { try await body() } catch { errors += 1 }
                        let elapsed = (ContinuousClock.now - started).components
                        latencies.append(Double(elapsed.seconds) * 1e6 + Double(elapsed.attoseconds) / 1e12)
                    }
                    return (latencies, errors)
                }
            }
            var all: [Double] = []
            var errors = 0
            for await (part, failed) in group { all += part; errors += failed }
            return (all.sorted(), errors)
        }
        return figures(latencies, errors: errors)
    }

    private func report(_ results: [String: [Figures]]) {
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        say("\nmedians of \(options.runs) runs (each run's figures in brackets)")
        say("series                req/s       p50 µs     p99 µs    errors")
        for name in ["HTTP alone", "bus alone", "ping over HTTP", "read in-process", "read over HTTP", "write in-process", "write over HTTP", "signed-in read", "GET /v1/me", "login over HTTP",
                     "estimate in-process", "estimate over HTTP", "tax return in-process", "tax preview over HTTP", "return PDF over HTTP", "tax answer over HTTP"] {
            guard let figures = results[name] else { continue }
            let line = [
                name.padding(toLength: 20, withPad: " ", startingAt: 0),
                String(format: "%9.0f", median(figures.map(\.rate))),
                String(format: "%10.0f", median(figures.map(\.p50))),
                String(format: "%10.0f", median(figures.map(\.p99))),
                String(format: "%8d", figures.map(\.errors).reduce(0, +)),
                "  [" + figures.map { String(format: "%.0f", $0.rate) }.joined(separator: ", ") + "]",
            ]
            say(line.joined(separator: " "))
        }
        for kind in ["read", "write", "estimate"] {
            guard let overHTTP = results["\(kind) over HTTP"], let inProcess = results["\(kind) in-process"] else { continue }
            let http = median(overHTTP.map(\.rate)), local = median(inProcess.map(\.rate))
            say(String(format: "%@: HTTP through the bus serves %.2f of the in-process rate (%.1fx slower)", kind, http / local, local / http))
        }
        for kind in ["read", "write"] {
            guard let ping = results["ping over HTTP"], let inProcess = results["\(kind) in-process"] else { continue }
            // Were a call over HTTP the path's cost plus the handler's, one after the other on the same cores:
            let path = median(ping.map(\.rate)), local = median(inProcess.map(\.rate))
            let bound = 1 / (1 / path + 1 / local)
            say(String(format: "the path alone (ping over HTTP) %.0f req/s: with the %@'s cost added, a %@ over HTTP reaches at most %.0f req/s, %.2f of in-process",
                       path, kind, kind, bound, bound / local))
        }
        guard let anonymous = results["read over HTTP"], let signedIn = results["signed-in read"] else { return }
        let open = median(anonymous.map(\.rate)), guarded = median(signedIn.map(\.rate))
        say(String(format: "the gateway's token check: the signed-in read serves %.2f of the anonymous read's rate", guarded / open))
    }

    /// Waits until the machine is quiet (at least 80% idle over 200 ms; 30 s at most), so that work a
    /// series leaves behind is not billed to the next: the server goes on filling the PDFs still
    /// queued when wrk stops, about 2 s of both cores, which halved the series after it.
    private func settle(before name: String) async {
        func ticks() -> (idle: Int, total: Int)? {
            // The first line of /proc/stat: cpu user nice system idle iowait irq softirq steal ...
            guard let line = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8))?.split(separator: "\n").first else { return nil }
            let fields = line.split(separator: " ").dropFirst().compactMap { Int($0) }
            return fields.count >= 5 ? (fields[3] + fields[4], fields.reduce(0, +)) : nil
        }
        let start = ContinuousClock.now
        while start.duration(to: .now) < .seconds(30), let before = ticks() {
            try? await Task.sleep(for: .milliseconds(200))
            guard let after = ticks() else { return }
            if after.total > before.total, Double(after.idle - before.idle) / Double(after.total - before.total) >= 0.8 { break }
        }
        let waited = start.duration(to: .now)
        if waited > .seconds(1) { say("waited \(waited.components.seconds) s for the machine to settle before \(name)") }
    }

    /// The rate over the run and the percentiles of sorted `latencies` (µs).
    private func figures(_ latencies: [Double], errors: Int) -> Figures {
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        return Figures(rate: Double(latencies.count) / Double(options.duration), p50: percentile(0.5), p99: percentile(0.99), errors: errors)
    }

    /// Makes the bench account's 2024 interview a ready resident return (one W-2, the rest skipped)
    /// and returns the size of its PDF.
    private func readyReturn(base: String, token: String) async throws -> Int {
        func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> (Int, Data) {
            var request = URLRequest(url: URL(string: "\(base)\(path)")!)
            request.httpMethod = method
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            if let body {
                request.httpBody = try JSONSerialization.data(withJSONObject: body)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (data, reply) = try await URLSession.shared.data(for: request)
            return ((reply as? HTTPURLResponse)?.statusCode ?? 0, data)
        }
        func object(_ data: Data) -> [String: Any] { (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:] }
        var answers: [String: Any] = [
            "citizen": false, "greenCard": "no", "visa": "F", "visa.changed": false, "visa.earlierYears": 0, "days.thisYear": 366,
            "days.lastYear": 365, "days.twoYearsAgo": 365, "days.januaryFirst": true, "closerConnection": false, "income.any": true,
            "income.other": false, "treaty.claim": false, "filing.married": false, "filing.dependents": false, "filing.claimedAsDependent": false,
            "income.w2s": [["employerName": "Campus Dining", "employerEIN": "12-3456789", "wagesCents": 3_000_100, "federalWithheldCents": 250_000]],
            "name.first": "Mei", "name.last": "Chen", "tin": "912-70-1234", "email": "bench@tcd.ie", "occupation": "Student",
            "address.us": ["line1": "1 Silber Way", "city": "Boston", "state": "MA", "postalCode": "02215", "country": "US"],
        ]
        for year in 1...5 { answers["visa.prior\(year)"] = "F" }
        answers["visa.prior6"] = "none"
        let current = object(try await call("GET", "/v1/tax/interviews/2024").1)["version"] as? Int ?? 0
        let (status, saved) = try await call("PATCH", "/v1/tax/interviews/2024", ["version": current, "answers": answers])
        let assessment = object(saved)["assessment"] as? [String: Any]
        let open = (assessment?["missing"] as? [[String: Any]] ?? []).filter { $0["skipped"] as? Bool != true }.compactMap { $0["question"] as? String }
        guard status == 200, let version = object(saved)["version"] as? Int else {
            throw BenchmarkFailure(description: "the bench return could not be saved: \(String(decoding: saved, as: UTF8.self))")
        }
        if !open.isEmpty { _ = try await call("PATCH", "/v1/tax/interviews/2024", ["version": version, "skip": open]) }
        let (pdfStatus, pdf) = try await call("GET", "/v1/tax/returns/2024/pdf")
        guard pdfStatus == 200, pdf.starts(with: Array("%PDF".utf8)) else {
            throw BenchmarkFailure(description: "the bench return has no PDF: \(String(decoding: pdf.prefix(500), as: UTF8.self))")
        }
        return pdf.count
    }

    /// Saved interview answers per second through the gateway: one saver per tax year of the bench
    /// account (four devices, each on its own interview), each saving one answer at a time against the
    /// version it last got back, on an interview filled in first. Every save seals the interview,
    /// records the change and assesses it. URLSession, not wrk: each request carries the new version.
    private func savedAnswers(base: String, token: String, full: String) async throws -> Figures {
        func patch(_ year: Int, _ body: String) async throws -> Int {
            var request = URLRequest(url: URL(string: "\(base)/v1/tax/interviews/\(year)")!)
            request.httpMethod = "PATCH"
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (data, reply) = try await URLSession.shared.data(for: request)
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            if (reply as? HTTPURLResponse)?.statusCode == 409, let current = object?["current"] as? [String: Any], let version = current["version"] as? Int {
                return version
            }
            guard (reply as? HTTPURLResponse)?.statusCode == 200, let version = object?["version"] as? Int else {
                throw BenchmarkFailure(description: "a tax answer failed: \(String(decoding: data, as: UTF8.self))")
            }
            return version
        }
        let end = ContinuousClock.now + .seconds(options.duration)
        let (latencies, errors) = try await withThrowingTaskGroup(of: ([Double], Int).self) { group in
            for year in 2023...2026 {
                group.addTask {
                    var version = try await patch(year, #"{"version":0}"#)
                    version = try await patch(year, #"{"version":\#(version),"answers":\#(full)}"#)
                    var latencies: [Double] = [], errors = 0, turn = 0
                    while ContinuousClock.now < end {
                        turn += 1
                        let started = ContinuousClock.now
                        do { version = try await patch(year, #"{"version":\#(version),"answers":{"name.first":"Mei\#(turn % 2)"}}"#) } catch { errors += 1 }
                        let elapsed = (ContinuousClock.now - started).components
                        latencies.append(Double(elapsed.seconds) * 1e6 + Double(elapsed.attoseconds) / 1e12)
                    }
                    return (latencies, errors)
                }
            }
            var all: [Double] = [], errors = 0
            for try await (part, failed) in group { all += part; errors += failed }
            return (all.sorted(), errors)
        }
        return figures(latencies, errors: errors)
    }

    /// A verified account for the login series.
    private func givenAccount() async throws {
        let hash = try await PasswordHasher().hash("a long walk by the Liffey")
        try await authDatabase.transaction { connection in
            _ = try await connection.query(
                """
                INSERT INTO accounts (id, email, username, display_name, password_hash, university_id, verified_at)
                VALUES (\(UUID()), 'bench@tcd.ie', 'bench', 'Bench', \(hash), 'tcd', now()) ON CONFLICT (email) DO NOTHING
                """,
                logger: authDatabase.logger)
        }
    }

    /// An access token from one login through the gateway.
    private func accessToken(base: String, login: String) async throws -> String {
        var request = URLRequest(url: URL(string: "\(base)/v1/auth/login")!)
        request.httpMethod = "POST"
        request.httpBody = Data(login.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, _) = try await URLSession.shared.data(for: request)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let token = object["accessToken"] as? String else {
            throw BenchmarkFailure(description: "login failed: \(String(decoding: data, as: UTF8.self))")
        }
        return token
    }

    struct BenchmarkFailure: Error, CustomStringConvertible { let description: String }
}

/// Writes a line to standard output at once (print is block-buffered through a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
