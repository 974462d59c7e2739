import Envelope
import Foundation
import PdfEmailContract
@testable import PdfEmailService
import Testing
import TestSupport

/// Forms as PDFs, read back by an independent parser (pypdf): official blanks filled with real
/// appearances, the other forms laid out, encryption, and the blanks checked at start.
@Suite(.timeLimit(.minutes(3))) struct FormFillTests {
    static let blanks = try! BlankBook.bundled(preparingIn: FileManager.default.temporaryDirectory.appendingPathComponent("melon-blanks-\(UUID().uuidString)"))
    static let packet = FormPacket(blanks: blanks)
    typealias Line = PdfEmail.Forms.Line

    static let resident = PdfEmail.Forms.Fill.Request(taxYear: 2024, forms: [
        .init(form: "1040", title: "Form 1040 U.S. Individual Income Tax Return", lines: [
            Line(line: "name.first", label: "Your first name", value: "Mei"), Line(line: "name.last", label: "Last name", value: "Ling"),
            Line(line: "ssn", label: "Your social security number", value: "912-70-1234"),
            Line(line: "status.single", label: "Single", value: "X"), Line(line: "digitalAssets.no", label: "Digital assets: No", value: "X"),
            Line(line: "1a", label: "Wages (W-2 box 1)", value: "30,001"), Line(line: "16", label: "Tax", value: "1,751"),
            Line(line: "35a", label: "Refunded to you", value: "749"), Line(line: "occupation", label: "Your occupation", value: "Student"),
        ]),
        .init(form: "1040-schedule-1", title: "Schedule 1 (Form 1040) Additional Income and Adjustments to Income", lines: [
            Line(line: "name", label: "Name", value: "Mei Ling"), Line(line: "8r", label: "Scholarship and fellowship grants", value: "1,000"),
            Line(line: "10", label: "Additional income", value: "1,000"),
        ]),
    ])

    static let f1040 = "topmostSubform[0].Page1[0]."

    @Test func officialBlanksAreFilledAndShowTheirValuesInEveryViewer() async throws {
        let made = try Self.packet.make(Self.resident)
        #expect(made.forms == [.init(form: "1040", official: true), .init(form: "1040-schedule-1", official: true)])
        let read = try await PDFInspection.of(made.pdf)
        #expect(read.pages == 4 && !read.encrypted)
        for (field, value) in [
            "f1_04[0]": "Mei", "f1_06[0]": "912701234", "f1_32[0]": "30,001",
            "FilingStatus_ReadOrder[0].c1_3[0]": "/1", "c1_5[1]": "/2",  // the blank's own "on" states
        ] {
            #expect(read.fields[Self.f1040 + field] == value, "the field \(field)")
            #expect(read.appearances[Self.f1040 + field] == value, "what a viewer shows in \(field)")
        }
        #expect(read.fields["topmostSubform[0].Page2[0].f2_02[0]"] == "1,751" && read.appearances["topmostSubform[0].Page2[0].f2_02[0]"] == "1,751")
        #expect(read.fields[Self.f1040 + "FilingStatus_ReadOrder[0].c1_3[2]"] == "/Off", "married filing separately stays unchecked")
        #expect(read.fields["form1[0].Page1[0].f1_29[0]"] == "1,000" && read.appearances["form1[0].Page1[0].f1_29[0]"] == "1,000", "Schedule 1 line 8r")
        #expect(try Self.packet.make(Self.resident).sha256 == made.sha256, "the same forms give the same bytes")
    }

    /// Rendered as a viewer that shows the stored appearances does (poppler, NeedAppearances unset):
    /// the SSN's nine digits each in their own cell of the comb, and amounts against the right of
    /// their boxes, as the fields define them (qpdf's appearances drew both from the left).
    @Test func combCellsAndRightAlignedAmountsRenderWhereTheFormPutsThem() async throws {
        let made = try Self.packet.make(Self.resident)
        let page1 = try await Self.glyphColumns(made.pdf, page: 1, fields: [Self.f1040 + "f1_06[0]", Self.f1040 + "f1_32[0]"])
        let ssn = try #require(page1[Self.f1040 + "f1_06[0]"])
        #expect(ssn.runs.count == 9, "one run of ink per digit: \(ssn.runs)")
        let cell = (ssn.rect[2] - ssn.rect[0]) / 9
        for (index, run) in ssn.runs.enumerated() {
            let centre = (run[0] + run[1]) / 2, cellCentre = ssn.rect[0] + (Double(index) + 0.5) * cell
            #expect(abs(centre - cellCentre) < 1.5, "digit \(index + 1) at \(centre), its cell's centre \(cellCentre)")
        }
        let page2 = try await Self.glyphColumns(made.pdf, page: 2, fields: ["topmostSubform[0].Page2[0].f2_02[0]", "topmostSubform[0].Page2[0].f2_24[0]"])
        for (name, box) in [(Self.f1040 + "f1_32[0]", page1[Self.f1040 + "f1_32[0]"])] + page2.map({ ($0.key, Optional($0.value)) }) {
            let box = try #require(box, "\(name) rendered")
            let left = try #require(box.runs.first?[0], "\(name) shows ink"), right = try #require(box.runs.last?[1])
            #expect(box.rect[2] - right < 4, "\(name) ends \(box.rect[2] - right) pt from its right edge")
            #expect(left - box.rect[0] > (box.rect[2] - box.rect[0]) / 3, "\(name) starts \(left - box.rect[0]) pt from its left edge")
        }
    }

    struct RenderedField: Decodable {
        let rect: [Double]
        let runs: [[Double]]
    }

    /// Where each field's value lands on `page` once rendered (`Tests/Mail/glyph_columns.py`, poppler's pdftoppm).
    static func glyphColumns(_ pdf: Data, page: Int, fields: [String]) async throws -> [String: RenderedField] {
        let tools = try #require(ProcessInfo.processInfo.environment["MELON_TEST_TOOLS"], "run the tests with ./deploy/test.sh")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("melon-render-\(UUID().uuidString).pdf")
        try pdf.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = BuildProducts.packageRoot().appendingPathComponent("Tests/Mail/glyph_columns.py").path
        let run = try ChildProcess(executable: "\(tools)/python3", arguments: [script, file.path, String(page)] + fields, name: "glyph-columns")
        let status = await run.wait(timeout: .seconds(60))
        let last = try #require(run.output.split(separator: "\n").last, "glyph_columns.py: \(run.output)")
        try #require(status == 0, "glyph_columns.py exited \(String(describing: status)): \(run.output)")
        return try JSONDecoder().decode([String: RenderedField].self, from: Data(last.utf8))
    }

    @Test func formsWithoutABlankAreLaidOutForCopyingOntoTheOfficialForm() async throws {
        let lines = (1...60).map { Line(line: "l\($0)", label: "A label long enough to wrap onto a second row when it is laid out in the label column number \($0)", value: "\($0),000") }
        let request = PdfEmail.Forms.Fill.Request(taxYear: 2024, forms: [
            .init(form: "1040-NR", title: "Form 1040-NR U.S. Nonresident Alien Income Tax Return", lines: [
                Line(line: "1a", label: "Total amount from Form(s) W-2, box 1", value: "15,000"),
                Line(line: "1k", label: "Total income exempt by a treaty from Schedule OI", value: "5,000"),
            ] + lines),
            .init(form: "8843", title: "Form 8843 Statement for Exempt Individuals", lines: [Line(line: "1a", label: "Type of US visa", value: "F-1")]),
        ])
        let made = try Self.packet.make(request)
        #expect(made.forms.map(\.official) == [false, false])
        let read = try await PDFInspection.of(made.pdf)
        #expect(read.pages == made.pages && read.pages >= 3, "60 wrapped lines take more than a page")
        let first = read.text.first ?? ""
        for text in ["Form 1040-NR U.S. Nonresident Alien Income Tax Return", "Tax year 2024", "Total amount from Form(s) W-2, box 1", "15,000", "copy onto the official IRS form"] {
            #expect(first.contains(text), "\(text) in: \(first)")
        }
        #expect(read.text.last?.contains("Form 8843 Statement for Exempt Individuals") == true && read.text.last?.contains("F-1") == true)
        let nextYear = try Self.packet.make(.init(taxYear: 2025, forms: [Self.resident.forms[0]]))
        #expect(nextYear.forms == [.init(form: "1040", official: false)], "no 2025 blank here: laid out")
    }

    /// A laid-out page prints the form's own line numbers and captions, never a named item's id, and
    /// its footer names the form as the form does.
    @Test func laidOutPagesPrintCaptionsNotInternalKeys() async throws {
        let keys = ["name.first", "name.last", "ssn", "address.zip", "status.single", "35c.checking"]
        let request = PdfEmail.Forms.Fill.Request(taxYear: 2025, forms: [
            .init(form: "1040-NR", title: "Form 1040-NR U.S. Nonresident Alien Income Tax Return", lines: [
                Line(line: "name.first", label: "Your first name and middle initial", value: "Mei"),
                Line(line: "name.last", label: "Last name", value: "Chen"),
                Line(line: "ssn", label: "Your social security number or ITIN", value: "912-70-1234"),
                Line(line: "address.zip", label: "ZIP code", value: "02139"),
                Line(line: "status.single", label: "Filing status: single", value: "X"),
                Line(line: "1k", label: "Total income exempt by a treaty from Schedule OI", value: "5,000"),
                Line(line: "35c.checking", label: "Type: checking", value: "X"),
            ], name: "Form 1040-NR"),
            .init(form: "1040-NR-schedule-OI", title: "Schedule OI (Form 1040-NR) Other Information",
                  lines: [Line(line: "L", label: "Income exempt from tax by a treaty", value: "CN, article 20(c), 5,000")], name: "Schedule OI (Form 1040-NR)"),
        ])
        let read = try await PDFInspection.of(try Self.packet.make(request).pdf)
        let text = read.text.joined(separator: "\n")
        for key in keys + ["1040-NR-schedule-OI"] { #expect(!text.contains(key), "\(key) printed: \(text)") }
        for caption in ["Your first name and middle initial", "ZIP code", "1k", "Schedule OI (Form 1040-NR) (2025), page 1", "Form 1040-NR (2025), page 1"] {
            #expect(text.contains(caption), "\(caption) missing: \(text)")
        }
    }

    @Test func aPasswordEncryptsThePDFWithAES256() async throws {
        var request = Self.resident
        request.password = "-- --print=none correct horse"  // read as data, never as qpdf options
        let made = try Self.packet.make(request)
        let locked = try await PDFInspection.of(made.pdf)
        #expect(locked.encrypted && !locked.opened && locked.encryption == ["V": 5, "R": 6], "AES-256 is V 5, R 6: \(locked.encryption)")
        #expect(try await PDFInspection.of(made.pdf, password: "wrong password").opened == false)
        let opened = try await PDFInspection.of(made.pdf, password: "-- --print=none correct horse")
        #expect(opened.opened && opened.pages == 4 && opened.fields[Self.f1040 + "f1_06[0]"] == "912701234")
    }

    @Test func whatABlankCannotTakeIsRefusedNamingTheField() throws {
        var request = Self.resident
        request.forms[0].lines += [Line(line: "1k", label: "Treaty", value: "5,000"), Line(line: "status.marriedSeparately", label: "MFS", value: "yes")]
        request.forms[1].lines[0].value = "Mei\u{0}Ling"
        request.forms[0].lines[2].value = "912-70-1234-99"  // 11 digits for a 9-cell comb
        request.password = "short"
        // What the schema says, as the kit checks it before the handler: the password's length, a control character.
        #expect(throws: OperationError.self) { try PdfEmail.Forms.Fill.check(request) }
        do { try PdfEmail.Forms.Fill.check(request) } catch {
            #expect(error.fields.map(\.field).sorted() == ["data.forms[1].lines[0].value", "data.password"], "\(error.fields)")
        }
        // What the blank says, which the packet checks.
        var validation = Validation()
        Self.packet.check(request, &validation)
        #expect(throws: OperationError.self) { try validation.finish() }
        do { try validation.finish() } catch {
            #expect(error.fields.map(\.field) == ["data.forms[0].lines[2].value", "data.forms[0].lines[9].line", "data.forms[0].lines[10].value"], "\(error.fields)")
        }
    }

    /// A length is counted in Unicode scalars, by the schema alone: four flags are eight scalars (and
    /// four characters), a password the gateway takes, so the service takes it too.
    @Test func aPasswordOfEightScalarsIsTakenWhateverItsCharacters() throws {
        var request = Self.resident
        request.password = "🇮🇪🇮🇪🇮🇪🇮🇪"
        try PdfEmail.Forms.Fill.check(request)
        var validation = Validation()
        Self.packet.check(request, &validation)
        try validation.finish()
    }

    @Test func aChangedOrMissingBlankStopsTheStart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("melon-blanks-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = BuildProducts.packageRoot().appendingPathComponent("Services/PdfEmail/Blanks")
        try FileManager.default.copyItem(at: source, to: folder.appendingPathComponent("Blanks"))
        let blank = folder.appendingPathComponent("Blanks/2024/f1040.pdf")
        var bytes = try Data(contentsOf: blank)
        bytes[bytes.count / 2] ^= 0xff
        try bytes.write(to: blank)
        #expect { try BlankBook.load(from: folder.appendingPathComponent("Blanks"), preparingIn: folder.appendingPathComponent("prepared")) } throws: {
            "\($0)".contains("2024/f1040.pdf is not the pinned file")
        }
        try FileManager.default.removeItem(at: blank)
        #expect { try BlankBook.load(from: folder.appendingPathComponent("Blanks"), preparingIn: folder.appendingPathComponent("prepared")) } throws: {
            "\($0)".contains("2024/f1040.pdf is missing")
        }
    }
}
