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

    /// Blocking (qpdf and libharu): run it off the cooperative threads. As few qpdf passes as the
    /// forms allow: a lone official form is filled and finished in one, consecutive laid-out forms
    /// share one document, and only several parts are merged.
    func make(_ request: PdfEmail.Forms.Fill.Request) throws -> Made {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("melon-pdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }

        enum Part {
            case official(BlankBook.Blank, PdfEmail.Forms.Content)
            case laidOut([FormRenderer.Content])
        }
        var parts: [Part] = []
        for form in request.forms {
            if let blank = blanks.blank(form: form.form, taxYear: request.taxYear) {
                parts.append(.official(blank, form))
                continue
            }
            let content = FormRenderer.Content(
                form: form.form, name: form.name ?? "Form \(form.form)", title: form.title, lines: form.lines.map { ($0.isNumbered ? $0.line : "", $0.label, $0.value) })
            if case .laidOut(let previous)? = parts.last {
                parts[parts.count - 1] = .laidOut(previous + [content])
            } else {
                parts.append(.laidOut([content]))
            }
        }
        // How the file leaves: a deterministic /ID, or AES-256 under the password with a random owner
        // password (nobody can lift its restrictions); object streams make it about half the size.
        var finish: [String: Any] = ["objectStreams": "generate"]
        if let password = request.password {
            finish["encrypt"] = ["userPassword": password, "ownerPassword": UUID().uuidString + UUID().uuidString, "256bit": [String: Any]()]
        } else {
            finish["deterministicId"] = ""
        }
        let output = folder.appendingPathComponent("packet.pdf")
        var files: [String] = []
        var pages = 0
        for (index, part) in parts.enumerated() {
            let file = folder.appendingPathComponent("\(index).pdf")
            switch part {
            case .official(let blank, let form):
                try AcroFormFiller.fill(blank, values: form.lines.map { ($0.line, $0.value) }, in: folder, output: parts.count == 1 ? output : file,
                                        finish: parts.count == 1 ? finish : [:])
                pages += blank.pages
            case .laidOut(let contents):
                pages += try FormRenderer.render(contents, taxYear: request.taxYear, output: file)
            }
            files.append(file.path)
        }
        if case .official? = parts.first, parts.count == 1 {
            // Filled and finished in one pass.
        } else {
            // The first part is the base and keeps its field tree whole; qpdf copies the others'
            // pages in, and a copied form's field tree splits per page (page 2's root gains a "+1"):
            // with the 1040 first, every field we fill keeps its official name.
            _ = try QPDFRunner.run(job: [
                "inputFile": files[0], "outputFile": output.path, "pages": [["file": "."]] + files.dropFirst().map { ["file": $0] },
            ].merging(finish) { _, finishing in finishing })
        }
        let pdf = try Data(contentsOf: output)
        var filled: [PdfEmail.Forms.Fill.Filled] = []
        for part in parts {
            switch part {
            case .official(let blank, _): filled.append(.init(form: blank.form, official: true))
            case .laidOut(let contents): filled += contents.map { .init(form: $0.form, official: false) }
            }
        }
        return Made(pdf: pdf, pages: pages, sha256: SHA256.hash(data: pdf).map { String(format: "%02x", $0) }.joined(), forms: filled)
    }

    /// The problems of `request` a client can fix that the schema cannot say (the kit has checked
    /// it: years, counts, lengths, control characters): lines an official blank has no field for,
    /// checkbox values other than X.
    func check(_ request: PdfEmail.Forms.Fill.Request, _ validation: inout Validation) {
        for (index, form) in request.forms.enumerated() {
            let field = "data.forms[\(index)]"
            guard let blank = blanks.blank(form: form.form, taxYear: request.taxYear) else { continue }
            for (number, line) in form.lines.enumerated() {
                let at = "\(field).lines[\(number)]"
                guard let slot = blank.slots[line.line] else {
                    validation.fail("\(at).line", "the official \(request.taxYear) \(form.form) has no field for it")
                    continue
                }
                if case .checkbox = slot.kind { validation.check(line.value == "X" || line.value.isEmpty, "\(at).value", "a checkbox takes X or nothing") }
                if let maxLength = slot.maxLength {
                    validation.check(slot.fitted(line.value) != nil, "\(at).value", "must fit the form's \(maxLength) characters (separators are dropped to fit)")
                }
            }
        }
    }
}
