import Crypto
import Envelope
import Foundation
import PdfEmailContract

/// One PDF of several forms: each official blank filled, each other form laid out, then the pages
/// put together by qpdf (the fields of filled blanks kept), encrypted when a password is given.
/// Without a password the same request gives the same bytes (qpdf's deterministic /ID).
struct FormPacket: Sendable {
    let blanks: BlankBook

    struct Made {
        var pdf: Data
        var pages: Int
        var sha256: String
        var forms: [PdfEmail.Forms.Fill.Filled]
    }

    /// Blocking (qpdf and libharu): run it off the cooperative threads.
    func make(_ request: PdfEmail.Forms.Fill.Request) throws -> Made {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("melon-pdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        var parts: [String] = []
        var filled: [PdfEmail.Forms.Fill.Filled] = []
        for (index, form) in request.forms.enumerated() {
            let part = folder.appendingPathComponent("\(index).pdf")
            if let blank = blanks.blank(form: form.form, taxYear: request.taxYear) {
                try AcroFormFiller.fill(blank, values: form.lines.map { ($0.line, $0.value) }, in: folder, output: part)
                filled.append(.init(form: form.form, official: true))
            } else {
                try FormRenderer.render(
                    form: form.form, title: form.title, taxYear: request.taxYear, lines: form.lines.map { ($0.line, $0.label, $0.value) }, output: part)
                filled.append(.init(form: form.form, official: false))
            }
            parts.append(part.path)
        }
        let output = folder.appendingPathComponent("packet.pdf")
        // The first form is the base and keeps its field tree whole; qpdf copies the others' pages
        // in, and a copied form's field tree splits per page (page 2's root gains a "+1"): with the
        // 1040 first, every field we fill keeps its official name.
        var arguments = [parts[0]]
        if let password = request.password {
            // The owner password is random: nobody can lift the restrictions it sets.
            arguments += ["--encrypt", password, UUID().uuidString + UUID().uuidString, "256", "--"]
        } else {
            arguments += ["--deterministic-id"]
        }
        _ = try QPDFRunner.run(arguments + ["--pages", "."] + parts.dropFirst() + ["--", output.path])
        let pages = try QPDFRunner.run(["--show-npages"] + (request.password.map { ["--password=\($0)"] } ?? []) + [output.path])
        let pdf = try Data(contentsOf: output)
        return Made(
            pdf: pdf, pages: Int(pages.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0,
            sha256: SHA256.hash(data: pdf).map { String(format: "%02x", $0) }.joined(), forms: filled)
    }

    /// The problems of `request` a client can fix, by field: lines an official blank has no field
    /// for, checkbox values other than X, control characters.
    func check(_ request: PdfEmail.Forms.Fill.Request, _ validation: inout Validation) {
        validation.check((2000...2100).contains(request.taxYear), "data.taxYear", "must be from 2000 to 2100")
        validation.check((1...8).contains(request.forms.count), "data.forms", "must list 1 to 8 forms")
        if let password = request.password {
            validation.check((8...128).contains(password.count), "data.password", "must be 8 to 128 characters")
        }
        func plain(_ text: String, _ length: ClosedRange<Int>) -> Bool {
            length.contains(text.count) && !text.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) }
        }
        for (index, form) in request.forms.enumerated() {
            let field = "data.forms[\(index)]"
            validation.check(form.form.wholeMatch(of: /[A-Za-z0-9-]{1,40}/) != nil, "\(field).form", "must be a form id such as 1040")
            validation.check(plain(form.title, 1...200), "\(field).title", "must be 1 to 200 characters of text")
            validation.check(form.lines.count <= 400, "\(field).lines", "must list at most 400 lines")
            let blank = blanks.blank(form: form.form, taxYear: request.taxYear)
            for (number, line) in form.lines.prefix(400).enumerated() {
                let at = "\(field).lines[\(number)]"
                validation.check(plain(line.line, 1...40), "\(at).line", "must be 1 to 40 characters of text")
                validation.check(plain(line.label, 0...300), "\(at).label", "must be at most 300 characters of text")
                validation.check(plain(line.value, 0...200), "\(at).value", "must be at most 200 characters of text")
                guard let blank else { continue }
                guard let slot = blank.slots[line.line] else {
                    validation.fail("\(at).line", "the official \(request.taxYear) \(form.form) has no field for it")
                    continue
                }
                if case .checkbox = slot.kind { validation.check(line.value == "X" || line.value.isEmpty, "\(at).value", "a checkbox takes X or nothing") }
            }
        }
    }
}
