import Foundation
import PdfEmailContract
import TaxFormContract

/// What goes on each form of a complete return, for pdf-email to fill or lay out: the computed lines
/// in whole dollars as the forms show them, and the header and statement items from the answers
/// (the full SSN or ITIN: this is the return itself, for its owner).
struct ReturnDocuments {
    typealias Line = PdfEmail.Forms.Line

    let assessment: TaxForm.Assessment
    let answers: TaxForm.Answers
    let year: Int
    /// The visa question's choices, for their labels.
    let visas: [String: String]
    /// The filing deadline (`YYYY-MM-DD`), for the filing instructions.
    let due: String
    /// The treaty benefit claimed, when one is.
    let treaty: TaxYearRules.Treaty?
    /// Country names by ISO code.
    var countryNames: [String: String] = [:]

    static let titles: [TaxForm.Form: String] = [
        .f1040: "Form 1040 U.S. Individual Income Tax Return",
        .f1040Schedule1: "Schedule 1 (Form 1040) Additional Income and Adjustments to Income",
        .f1040NR: "Form 1040-NR U.S. Nonresident Alien Income Tax Return",
        .f8843: "Form 8843 Statement for Exempt Individuals and Individuals With a Medical Condition",
        .f8833: "Form 8833 Treaty-Based Return Position Disclosure Under Section 6114 or 7701(b)",
        .f843: "Form 843 Claim for Refund and Request for Abatement",
        .f8316: "Form 8316 Information Regarding Request for Refund of Social Security Tax Erroneously Withheld on Wages Received by a Nonresident Alien on an F, J, or M Type Visa",
    ]
    /// How each form names itself in its footer.
    static let names: [TaxForm.Form: String] = [
        .f1040: "Form 1040", .f1040Schedule1: "Schedule 1 (Form 1040)", .f1040NR: "Form 1040-NR", .f8843: "Form 8843",
        .f8833: "Form 8833", .f843: "Form 843", .f8316: "Form 8316",
    ]
    /// Where a claim on Form 843 for Social Security and Medicare tax withheld from a nonresident alien
    /// goes (IRS Publication 519, "Refund of Taxes Withheld in Error").
    static let claimAddress = "Department of the Treasury, Internal Revenue Service Center, Ogden, UT 84201-0038"
    static let scheduleOI = (form: "1040-NR-schedule-OI", title: "Schedule OI (Form 1040-NR) Other Information", name: "Schedule OI (Form 1040-NR)")
    static let instructions = (form: "filing-instructions", title: "How to file these forms", name: "Filing instructions")

    /// Every form of the return, the main one first, then its schedules and disclosures, then Form 8843,
    /// then a claim mailed by itself (Forms 843 and 8316), then the filing instructions.
    var forms: [PdfEmail.Forms.Content] {
        let decided = assessment.decision?.forms ?? []
        var contents: [PdfEmail.Forms.Content] = [], claims: [PdfEmail.Forms.Content] = []
        for computed in assessment.forms {
            let content = PdfEmail.Forms.Content(
                form: computed.form.rawValue, title: Self.titles[computed.form] ?? computed.form.rawValue, lines: lines(of: computed), name: Self.names[computed.form])
            if [.f843, .f8316].contains(computed.form) { claims.append(content) } else { contents.append(content) }
            if computed.form == .f1040NR {
                contents.append(.init(form: Self.scheduleOI.form, title: Self.scheduleOI.title, lines: scheduleOI(computed), name: Self.scheduleOI.name))
            }
        }
        if decided.contains(.f8843) {
            contents.append(.init(form: TaxForm.Form.f8843.rawValue, title: Self.titles[.f8843]!, lines: statement8843, name: Self.names[.f8843]))
        }
        contents += claims
        contents.append(.init(form: Self.instructions.form, title: Self.instructions.title, lines: filingInstructions(decided), name: Self.instructions.name))
        return contents
    }

    /// The Schedule OI items the interview answers (citizenship, residence, visa, days, the treaty
    /// claimed); the others are left for the student to complete on the official form.
    private func scheduleOI(_ form: TaxForm.ComputedForm) -> [Line] {
        var lines = Lines()
        lines.add("name", "Name", fullName)
        lines.add("A", "Country or countries of citizenship or nationality during the tax year", answers.text("citizenship").map(country))
        lines.add("B", "Country of residence for tax purposes during the tax year", (treaty?.country ?? answers.text("citizenship")).map(country))
        lines.add("D", "Ever a U.S. citizen?", answers.bool("citizen") == false ? "No" : nil)
        lines.add("E", "Visa type on the last day of the tax year", answers.text("visa").map { visas[$0] ?? $0 })
        lines.add("H", "Days present in the United States in \(year - 2), \(year - 1) and \(year)", daysPresent)
        if let treaty, let exempt = form["1k"], exempt.dollars > 0 {
            let months = answers.count("treaty.priorMonths").map { "\($0) months claimed before \(year)" } ?? "months claimed before: -"
            lines.add("L", "Income exempt from tax by a treaty: country, article, months claimed in prior tax years, amount this year (Form 1040-NR line 1k)",
                "\(country(treaty.country)), article \(treaty.article), \(months), \(Self.dollars(exempt.dollars))")
        }
        lines.add("note", "The items this page leaves out", "Complete them on the official Schedule OI")
        return lines.all
    }

    /// What to sign, attach and keep, and by when: no mailing address, which the forms' own
    /// instructions give (it depends on the form and on whether a payment goes with it).
    private func filingInstructions(_ forms: [TaxForm.Form]) -> [Line] {
        var steps: [(String, String)] = []
        let main = forms.first { $0 != .f8843 }
        if let main {
            steps.append(("Sign and date", "Form \(main.rawValue), page 2"))
        } else {
            steps.append(("Sign and date", "Form 8843, at the bottom of page 1"))
        }
        if case .list(let w2s)? = answers["income.w2s"], !w2s.isEmpty {
            steps.append(("Attach to page 1", "Copy B of each Form W-2"))
        }
        if forms.contains(.f8843) {
            steps.append(("Form 8843", main == nil ? "Mail it by itself" : "Attach it to the Form \(main!.rawValue)"))
        }
        let computed = Set(assessment.forms.map(\.form))
        if computed.contains(.f8833) {
            steps.append(("Form 8833", "Attach it to the Form 1040, after Schedule 1"))
        }
        let exempt = assessment.forms.contains { ($0["1k"]?.dollars ?? 0) > 0 || $0["8z"] != nil }
        if exempt, let note = treaty?.note { steps.append(("The treaty's condition", note)) }
        steps.append(("Mail by", due))
        steps.append(("Where to mail", "The address in the form's instructions, \"Where To File\" (it depends on the form and on any payment)"))
        if let owed = assessment.refundCents, owed < 0 {
            steps.append(("Amount you owe", "\(Self.dollars((-owed + 50) / 100)) by \(due), as the form's instructions explain"))
        }
        if computed.contains(.f843) {
            // IRS Publication 519, "Refund of Taxes Withheld in Error": what goes with Form 843.
            steps.append(("Forms 843 and 8316", "Sign both and mail them by themselves, not with the return"))
            for attachment in [
                "Form 8316", "A copy of each Form W-2 showing the tax withheld (boxes 4 and 6)", "A copy of your visa",
                "Form I-94, or another record of your dates of arrival and departure",
                "Your I-20 or DS-2019, and your EAD for OPT or economic-hardship work: what shows you were allowed to work",
                answers.bool("fica.statement") == true ? "Your employer's statement of what they paid back and claimed"
                    : "No employer's statement: Form 8316 says why",
                "Pay statements for the exempt months, if you were exempt for only part of the year",
            ] {
                steps.append(("Attach to Form 843", attachment))
            }
            steps.append(("Mail Forms 843 and 8316 to", Self.claimAddress + " (Publication 519; the Instructions for Form 843 give any newer address)"))
        }
        steps.append(("Keep", "A copy of everything you mail"))
        steps.append(("Pages marked \"Prepared by Melon\"", "Copy them onto the official forms before you sign"))
        // Numbered in order, whichever steps apply.
        var lines = Lines()
        for (index, step) in steps.enumerated() { lines.add(String(index + 1), step.0, step.1) }
        return lines.all
    }

    /// `30001` as `30,001`.
    static func dollars(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    /// `123456` cents as `1,234.56`.
    static func cents(_ value: Int64) -> String {
        let whole = dollars(Int64(value.magnitude / 100)), part = Int(value.magnitude % 100)
        return (value < 0 ? "-" : "") + whole + "." + (part < 10 ? "0" : "") + String(part)
    }

    /// A country's name from its ISO code (the code when the list has none).
    private func country(_ code: String) -> String { countryNames[code] ?? code }

    /// Lines as the forms show them: an empty answer leaves its line out, a value is cut to the
    /// Unicode scalars pdf-email takes (`PdfEmail.Forms.Line.valueLength`).
    private struct Lines {
        private(set) var all: [Line] = []

        mutating func add(_ line: String, _ label: String, _ value: String?) {
            if let value, !value.isEmpty { all.append(Line(line: line, label: label, value: String(String.UnicodeScalarView(value.unicodeScalars.prefix(Line.valueLength.upperBound))))) }
        }

        /// A line's text in several sentences, as named items after the numbered line: each sentence a
        /// label of its own (a laid-out page prints labels whole, values are short).
        mutating func explain(_ line: String, _ sentences: [String]) {
            for (index, sentence) in sentences.enumerated() { all.append(Line(line: "\(line).\(index + 1)", label: sentence, value: "")) }
        }
    }

    /// Days present two years ago, last year and this year (`-` for one not answered).
    private var daysPresent: String {
        [answers.count("days.twoYearsAgo"), answers.count("days.lastYear"), answers.count("days.thisYear")]
            .map { $0.map(String.init) ?? "-" }.joined(separator: ", ")
    }

    /// An address answer on one line.
    private func oneLine(_ parts: [String: String]) -> String {
        [parts["line1"], parts["line2"], parts["city"], [parts["state"], parts["postalCode"]].compactMap { $0 }.joined(separator: " "), parts["country"]]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
    }

    private var fullName: String { [answers.text("name.first"), answers.text("name.last")].compactMap { $0 }.joined(separator: " ") }

    private func address(_ id: String) -> [String: String] {
        guard case .object(let members)? = answers[id] else { return [:] }
        return members.compactMapValues { if case .text(let text) = $0 { text } else { nil } }
    }

    private func lines(of computed: TaxForm.ComputedForm) -> [Line] {
        var lines = Lines()
        switch computed.form {
        case .f1040, .f1040NR:
            lines.add("name.first", "Your first name and middle initial", answers.text("name.first"))
            lines.add("name.last", "Last name", answers.text("name.last"))
            lines.add("ssn", "Your social security number or ITIN", answers.text("tin"))
            let home = address("address.us")
            lines.add("address.line1", "Home address (number and street)", home["line1"])
            lines.add("address.line2", "Apartment", home["line2"])
            lines.add("address.city", "City, town or post office", home["city"])
            lines.add("address.state", "State", home["state"])
            lines.add("address.zip", "ZIP code", home["postalCode"])
            let married = answers.bool("filing.married") == true
            lines.add(married ? "status.marriedSeparately" : "status.single", married ? "Filing status: married filing separately" : "Filing status: single", "X")
            if computed.form == .f1040 { lines.add("digitalAssets.no", "Digital assets: No", "X") }
        case .f1040Schedule1:
            lines.add("name", "Name(s) shown on Form 1040", fullName)
            lines.add("ssn", "Your social security number", answers.text("tin"))
            if let treaty, computed["8z"] != nil {
                lines.add("8z.type", "Other income: list type and amount", "Exempt income, \(country(treaty.country)), article \(treaty.article)")
            }
        case .f8833:
            return disclosure8833(computed)
        case .f843:
            return claim843(computed)
        case .f8316:
            return information8316(computed)
        case .f8843:
            break
        }
        // A negative amount in parentheses, as the forms take it (Schedule 1 line 8z: Publication 519).
        for line in computed.lines { lines.add(line.line, line.label, line.dollars < 0 ? "(\(Self.dollars(-line.dollars)))" : Self.dollars(line.dollars)) }
        if computed.form != .f1040Schedule1 {
            if answers.bool("refund.directDeposit") == true, (computed["35a"]?.dollars ?? 0) > 0 {
                lines.add("35b", "Routing number", answers.text("refund.routing"))
                let savings = answers.text("refund.accountType") == "savings"
                lines.add(savings ? "35c.savings" : "35c.checking", savings ? "Type: savings" : "Type: checking", "X")
                lines.add("35d", "Account number", answers.text("refund.account"))
            }
            lines.add("occupation", "Your occupation", answers.text("occupation"))
            lines.add("phone", "Phone no.", answers.text("phone"))
            lines.add("email", "Email address", answers.text("email"))
        }
        return lines.all
    }

    /// Form 8843's header, Part I and Part II (teachers and trainees) or Part III (students), from the
    /// answers (../shared/reference/us-student-tax.md, "Form 8843").
    private var statement8843: [Line] {
        var lines = Lines()
        lines.add("name", "First name and initial, last name", fullName)
        lines.add("tin", "Your U.S. taxpayer identification number, if any", answers.text("tin"))
        lines.add("address.home", "Address in country of residence", oneLine(address("address.home")))
        lines.add("address.us", "Address in the United States", oneLine(address("address.us")))
        let visa = answers.text("visa").map { visas[$0] ?? $0 }
        lines.add("1a", "Type of U.S. visa and date you entered the United States", [visa, answers.text("visa.entryDate")].compactMap { $0 }.joined(separator: ", "))
        let changed = answers.bool("visa.changed") == true ? answers.text("visa.changeDate").map { "changed \($0)" } : nil
        lines.add("1b", "Current nonimmigrant status and date of change", [visa, changed].compactMap { $0 }.joined(separator: ", "))
        lines.add("2", "Country(ies) of citizenship", answers.text("citizenship").map(country))
        lines.add("3a", "Country that issued your passport", answers.text("passport.country").map(country))
        lines.add("3b", "Passport number", answers.text("passport.number"))
        lines.add("4a", "Days present in the United States in \(year - 2), \(year - 1) and \(year)", daysPresent)
        if let present = answers.count("days.thisYear"), let counted = assessment.decision?.countedDays.first {
            lines.add("4b", "Days in \(year) you claim you can exclude", String(present - counted))
        }
        let prior = (1...6).map { answers.text("visa.prior\($0)") ?? "none" }
        let history = prior.enumerated().map { index, visa in "\(year - 1 - index): \(visas[visa] ?? visa)" }.joined(separator: "; ")
        let exemptStatuses: Set<String> = ["F", "J-student", "J-scholar", "M", "Q"]
        let exemptYears = prior.filter(exemptStatuses.contains).count
        let school = address("school.address")
        if answers.text("visa") == "J-scholar" {
            lines.add("5", "Academic institution or other sponsor of your program, address and phone",
                [answers.text("school.name"), oneLine(school), answers.text("school.phone")].compactMap { $0 }.joined(separator: ", "))
            lines.add("6", "Director of the academic or other specialized program", answers.text("school.director"))
            lines.add("7", "Type of visa in each of the 6 prior years", history)
            lines.add("8", "Present as a teacher, trainee or student for any part of 2 of the 6 prior years?", exemptYears >= 2 ? "Yes" : "No")
        } else {
            lines.add("9", "Academic institution you attended, address and phone",
                [answers.text("school.name"), oneLine(school), answers.text("school.phone")].compactMap { $0 }.joined(separator: ", "))
            lines.add("10", "Director of the academic program (or foreign student adviser)", answers.text("school.director"))
            lines.add("11", "Type of visa in each of the 6 prior years", history)
            let more = exemptYears + (answers.count("visa.earlierYears") ?? 0) > 5
            lines.add("12", "Exempt as a teacher, trainee or student for any part of more than 5 calendar years?", more ? "Yes" : "No")
            let steps = answers.bool("permanentResidence.steps")
            lines.add("13", "During \(year), did you apply for, or take other affirmative steps to apply for, lawful permanent resident status in the "
                + "United States or have an application pending to change your status to that of a lawful permanent resident of the United States?",
                steps.map { $0 ? "Yes" : "No" })
            if steps == true { lines.add("14", "If you checked the Yes box on line 13, explain", answers.text("permanentResidence.explanation")) }
        }
        return lines.all
    }

    /// Employers of the W-2s: name and EIN.
    private var employers: String {
        guard case .list(let items)? = answers["income.w2s"] else { return "" }
        let names = items.compactMap { item -> String? in
            guard case .object(let w2) = item, case .text(let name)? = w2["employerName"] else { return nil }
            if case .text(let ein)? = w2["employerEIN"] { return "\(name) (EIN \(ein))" }
            return name
        }
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }.joined(separator: "; ")
    }

    private var visaLabel: String { answers.text("visa").map { visas[$0] ?? $0 } ?? "a student visa" }

    /// Form 8833 for a resident alien whose student treaty benefit survives the saving clause: the
    /// treaty, its article and the exception, the Code section it modifies, the payors and the
    /// explanation (lines 4 and 5 are left for the official form).
    private func disclosure8833(_ form: TaxForm.ComputedForm) -> [Line] {
        var lines = Lines()
        guard let treaty, let exempt = form["6"] else { return lines.all }
        lines.add("name", "Name", fullName)
        lines.add("tin", "U.S. taxpayer identifying number", answers.text("tin"))
        lines.add("address.us", "Address in the United States", oneLine(address("address.us")))
        lines.add("section6114", "The taxpayer is disclosing a treaty-based return position as required by section 6114", "X")
        lines.add("resident", "The taxpayer is a U.S. citizen or resident", "X")
        lines.add("1a", "Treaty country", country(treaty.country))
        lines.add("1b", "Article(s)", [treaty.article, treaty.residentAliens].compactMap { $0 }.joined(separator: "; "))
        lines.add("2", "Internal Revenue Code provision(s) overruled or modified by the treaty-based return position", "Section 61(a) (gross income: compensation for services)")
        lines.add("3", "Name, identifying number and U.S. address of the payor of the income", employers)
        lines.add("6", "Explain the treaty-based return position taken", "Wages of $\(Self.dollars(exempt.dollars)) exempt under article \(treaty.article)")
        let arrived = answers.text("treaty.arrivalDate").map { " I first arrived in the United States for these studies on \($0)." } ?? ""
        lines.explain("6", [
            "I was a resident of \(country(treaty.country)) immediately before I came to the United States to study, and I study here full time as \(visaLabel).\(arrived)",
            "In \(year) I am a resident alien under the substantial presence test. Article \(treaty.article) of the income tax treaty between the United States and \(country(treaty.country)) "
                + "exempts a student's wages up to $\(treaty.limit.map(Self.dollars) ?? "-") a year; \(treaty.residentAliens ?? "the treaty") keeps that exemption for a resident alien.",
            "My wages on Forms W-2 are reported on Form 1040 line 1a; the exempt $\(Self.dollars(exempt.dollars)) is entered in parentheses on Schedule 1 line 8z.",
        ])
        lines.add("note", "The items this page leaves out (lines 4 and 5)", "Complete them on the official Form 8833")
        return lines.all
    }

    /// Form 843 claiming Social Security and Medicare tax withheld in error (Publication 519; the
    /// claim is for employment tax, on the employer's Form 941).
    private func claim843(_ form: TaxForm.ComputedForm) -> [Line] {
        var lines = Lines()
        guard let claimed = form["2"] else { return lines.all }
        lines.add("name", "Name", fullName)
        lines.add("ssn", "Your social security number or ITIN", answers.text("tin"))
        lines.add("address", "Address (number, street, apartment, city, state and ZIP code)", oneLine(address("address.us")))
        lines.add("phone", "Daytime telephone number", answers.text("phone"))
        lines.add("1", "Period: prepare a separate Form 843 for each tax period", "From 01/01/\(year) to 12/31/\(year)")
        lines.add("2", "Amount to be refunded", "$" + Self.cents(claimed.cents))
        lines.add("3", "Type of tax", "Employment")
        lines.add("6", "Original return: the type of return filed", "941 (your employer's)")
        lines.add("7", "Explanation: why this claim should be allowed, and the computation of line 2", "Social Security and Medicare tax withheld in error")
        let withheld = FicaClaim.withheldCents((try? answers["income.w2s"]?.decoded(as: [TaxForm.W2].self)) ?? [])
        let repaid = withheld - claimed.cents
        let outcome = switch answers.text("fica.employer") {
        case "refunded-part": "My employer paid back $\(Self.cents(repaid)) and not the rest."
        case "refused": "My employer refused to pay it back."
        default: "My employer did not answer my request to pay it back."
        }
        lines.explain("7", [
            "In \(year) I was a nonresident alien in the United States as \(visaLabel), and the work my wages were paid for was work my visa allows.",
            "Internal Revenue Code section 3121(b)(19) excludes that work from Social Security and Medicare tax, yet my employer (\(employers)) withheld $\(Self.cents(withheld)) (Forms W-2, boxes 4 and 6).",
            outcome,
            "Line 2: $\(Self.cents(withheld)) withheld minus $\(Self.cents(repaid)) paid back = $\(Self.cents(claimed.cents)). Form 8316 and the documents Publication 519 lists are attached.",
        ])
        return lines.all
    }

    /// Form 8316: what the employer paid back and whether it claimed the tax, for the Form 843 claim.
    private func information8316(_ form: TaxForm.ComputedForm) -> [Line] {
        var lines = Lines()
        let repaid = form["2"]?.cents ?? 0
        lines.add("name", "Name", fullName)
        lines.add("ssn", "Your social security number or ITIN", answers.text("tin"))
        lines.add("A", "Was the income the Social Security tax was withheld from work your visa allows (directly related to your course of studies)?", "Yes")
        lines.add("1", "Has your employer paid you back for any part of the tax withheld?", repaid > 0 ? "Yes" : "No")
        if repaid > 0 { lines.add("2", "If yes, the amount", "$" + Self.cents(repaid)) }
        lines.add("3", "Have you authorized your employer to claim any part of the tax as a credit or refund?", "No")
        lines.add("5", "Has your employer claimed any part of the tax as a credit or refund?",
                  answers.bool("fica.statement") == true ? "See the employer's statement attached" : "Do not know")
        lines.add("statement", "If you cannot get a statement from your employer concerning the above information, why", answers.text("fica.noStatement"))
        lines.add("7", "Have you claimed any part of the tax as a credit against, or a refund of, your federal income tax?", "No")
        lines.add("9", "Name and address of employer", employers)
        lines.add("phone", "Your telephone number", answers.text("phone"))
        return lines.all
    }
}
