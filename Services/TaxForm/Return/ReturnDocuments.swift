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
    /// The treaty benefit claimed, when one is: country, article.
    let treaty: (country: String, article: String)?

    static let titles: [TaxForm.Form: String] = [
        .f1040: "Form 1040 U.S. Individual Income Tax Return",
        .f1040Schedule1: "Schedule 1 (Form 1040) Additional Income and Adjustments to Income",
        .f1040NR: "Form 1040-NR U.S. Nonresident Alien Income Tax Return",
        .f8843: "Form 8843 Statement for Exempt Individuals and Individuals With a Medical Condition",
    ]
    /// How each form names itself in its footer.
    static let names: [TaxForm.Form: String] = [
        .f1040: "Form 1040", .f1040Schedule1: "Schedule 1 (Form 1040)", .f1040NR: "Form 1040-NR", .f8843: "Form 8843",
    ]
    static let scheduleOI = (form: "1040-NR-schedule-OI", title: "Schedule OI (Form 1040-NR) Other Information", name: "Schedule OI (Form 1040-NR)")
    static let instructions = (form: "filing-instructions", title: "How to file these forms", name: "Filing instructions")

    /// Every form of the return, the main one first, then its schedules, then Form 8843.
    var forms: [PdfEmail.Forms.Content] {
        let decided = assessment.decision?.forms ?? []
        var contents: [PdfEmail.Forms.Content] = []
        for computed in assessment.forms {
            contents.append(.init(
                form: computed.form.rawValue, title: Self.titles[computed.form] ?? computed.form.rawValue, lines: lines(of: computed), name: Self.names[computed.form]))
            if computed.form == .f1040NR {
                contents.append(.init(form: Self.scheduleOI.form, title: Self.scheduleOI.title, lines: scheduleOI(computed), name: Self.scheduleOI.name))
            }
        }
        if decided.contains(.f8843) {
            contents.append(.init(form: TaxForm.Form.f8843.rawValue, title: Self.titles[.f8843]!, lines: statement8843, name: Self.names[.f8843]))
        }
        contents.append(.init(form: Self.instructions.form, title: Self.instructions.title, lines: filingInstructions(decided), name: Self.instructions.name))
        return contents
    }

    /// The Schedule OI items the interview answers (citizenship, residence, visa, days, the treaty
    /// claimed); the others are left for the student to complete on the official form.
    private func scheduleOI(_ form: TaxForm.ComputedForm) -> [Line] {
        var lines = Lines()
        lines.add("name", "Name", fullName)
        lines.add("A", "Country or countries of citizenship or nationality during the tax year", answers.text("citizenship"))
        lines.add("B", "Country of residence for tax purposes during the tax year", treaty?.country ?? answers.text("citizenship"))
        lines.add("D", "Ever a U.S. citizen?", answers.bool("citizen") == false ? "No" : nil)
        lines.add("E", "Visa type on the last day of the tax year", answers.text("visa").map { visas[$0] ?? $0 })
        lines.add("H", "Days present in the United States in \(year - 2), \(year - 1) and \(year)", daysPresent)
        if let treaty, let exempt = form["1k"], exempt.dollars > 0 {
            lines.add("L", "Income exempt from tax by a treaty: country, article, amount (Form 1040-NR line 1k)",
                "\(treaty.country), article \(treaty.article), \(Self.dollars(exempt.dollars))")
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
        steps.append(("Mail by", due))
        steps.append(("Where to mail", "The address in the form's instructions, \"Where To File\" (it depends on the form and on any payment)"))
        if let owed = assessment.refundCents, owed < 0 {
            steps.append(("Amount you owe", "\(Self.dollars((-owed + 50) / 100)) by \(due), as the form's instructions explain"))
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

    /// Lines as the forms show them: an empty answer leaves its line out, a value is cut to the
    /// Unicode scalars pdf-email takes (`PdfEmail.Forms.Line.valueLength`).
    private struct Lines {
        private(set) var all: [Line] = []

        mutating func add(_ line: String, _ label: String, _ value: String?) {
            if let value, !value.isEmpty { all.append(Line(line: line, label: label, value: String(String.UnicodeScalarView(value.unicodeScalars.prefix(Line.valueLength.upperBound))))) }
        }
    }

    /// Days present two years ago, last year and this year (`-` for one not answered).
    private var daysPresent: String {
        [answers.count("days.twoYearsAgo"), answers.count("days.lastYear"), answers.count("days.thisYear")]
            .map { $0.map(String.init) ?? "-" }.joined(separator: ", ")
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
        case .f8843:
            break
        }
        for line in computed.lines { lines.add(line.line, line.label, Self.dollars(line.dollars)) }
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
        func oneLine(_ parts: [String: String]) -> String {
            [parts["line1"], parts["line2"], parts["city"], [parts["state"], parts["postalCode"]].compactMap { $0 }.joined(separator: " "), parts["country"]]
                .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
        }
        lines.add("name", "First name and initial, last name", fullName)
        lines.add("tin", "Your U.S. taxpayer identification number, if any", answers.text("tin"))
        lines.add("address.home", "Address in country of residence", oneLine(address("address.home")))
        lines.add("address.us", "Address in the United States", oneLine(address("address.us")))
        let visa = answers.text("visa").map { visas[$0] ?? $0 }
        lines.add("1a", "Type of U.S. visa and date you entered the United States", [visa, answers.text("visa.entryDate")].compactMap { $0 }.joined(separator: ", "))
        let changed = answers.bool("visa.changed") == true ? answers.text("visa.changeDate").map { "changed \($0)" } : nil
        lines.add("1b", "Current nonimmigrant status and date of change", [visa, changed].compactMap { $0 }.joined(separator: ", "))
        lines.add("2", "Country(ies) of citizenship", answers.text("citizenship"))
        lines.add("3a", "Country that issued your passport", answers.text("passport.country"))
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
}
