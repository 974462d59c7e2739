import CHaru
import Foundation

/// Lays out a form that has no official blank here (1040-NR, Form 8843, years without a blank): its
/// title, year, each line's number, label and value, marked as prepared for copying onto the
/// official form and signing. libharu writes the PDF; Helvetica in WinAnsi encoding, so a character
/// outside it prints as `?` (the IRS asks for English letters on its forms).
enum FormRenderer {
    struct Failed: Error, CustomStringConvertible {
        let status: UInt
        var description: String { "libharu failed with error 0x\(String(status, radix: 16))" }
    }

    static let notice = "Prepared by Melon for you to copy onto the official IRS form, sign and mail. This page is not the official form."

    /// One form's content, as laid out.
    struct Content {
        let form: String
        /// How the form names itself in its footer (`Form 8843`, `Schedule OI (Form 1040-NR)`).
        let name: String
        let title: String
        /// Each line's number (empty for a named item), label and value.
        let lines: [(line: String, label: String, value: String)]
    }

    /// Lays out `forms` one after another in one PDF at `output`; returns its page count.
    @discardableResult
    static func render(_ forms: [Content], taxYear: Int, output: URL) throws -> Int {
        guard let pdf = HPDF_New(nil, nil) else { throw Failed(status: 0) }
        defer { HPDF_Free(pdf) }
        HPDF_SetCompressionMode(pdf, UInt32(HPDF_COMP_ALL))
        let regular = HPDF_GetFont(pdf, "Helvetica", "WinAnsiEncoding"), bold = HPDF_GetFont(pdf, "Helvetica-Bold", "WinAnsiEncoding")
        var page: HPDF_Page?
        var y: Float = 0
        var pageNumber = 0, pages = 0
        var name = "", title = ""

        func text(_ string: String, x: Float, y: Float, font: HPDF_Font?, size: Float, alignRight: Bool = false) {
            let bytes = Array((string.data(using: .windowsCP1252, allowLossyConversion: true) ?? Data()) + [0])
            bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { cString in
                    HPDF_Page_SetFontAndSize(page, font, size)
                    let left = alignRight ? x - HPDF_Page_TextWidth(page, cString) : x
                    HPDF_Page_BeginText(page)
                    HPDF_Page_TextOut(page, left, y, cString)
                    HPDF_Page_EndText(page)
                }
            }
        }
        func width(_ string: String, size: Float) -> Float {
            let bytes = Array((string.data(using: .windowsCP1252, allowLossyConversion: true) ?? Data()) + [0])
            HPDF_Page_SetFontAndSize(page, regular, size)
            return bytes.withUnsafeBufferPointer { $0.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { HPDF_Page_TextWidth(page, $0) } }
        }
        func newPage() {
            page = HPDF_AddPage(pdf)
            HPDF_Page_SetSize(page, HPDF_PAGE_SIZE_LETTER, HPDF_PAGE_PORTRAIT)
            pageNumber += 1
            pages += 1
            text(title, x: 40, y: 740, font: bold, size: 15)
            text("Tax year \(taxYear)", x: 572, y: 740, font: bold, size: 12, alignRight: true)
            text(notice, x: 40, y: 722, font: regular, size: 8)
            text("\(name) (\(taxYear)), page \(pageNumber)", x: 572, y: 30, font: regular, size: 8, alignRight: true)
            HPDF_Page_SetLineWidth(page, 0.5)
            HPDF_Page_MoveTo(page, 40, 712)
            HPDF_Page_LineTo(page, 572, 712)
            HPDF_Page_Stroke(page)
            y = 692
        }

        for content in forms {
            name = content.name
            title = content.title
            pageNumber = 0
            newPage()
            for entry in content.lines {
                // Labels wrap at 330 points; the value sits right-aligned on the row's first line.
                var rows: [String] = []
                var current = ""
                for word in entry.label.split(separator: " ") {
                    let candidate = current.isEmpty ? String(word) : current + " " + word
                    if width(candidate, size: 9) > 330, !current.isEmpty {
                        rows.append(current)
                        current = String(word)
                    } else {
                        current = candidate
                    }
                }
                rows.append(current)
                if y - Float(rows.count) * 12 < 50 { newPage() }
                text(entry.line, x: 40, y: y, font: bold, size: 9)
                text(entry.value, x: 572, y: y, font: bold, size: 10, alignRight: true)
                for row in rows {
                    text(row, x: 80, y: y, font: regular, size: 9)
                    y -= 12
                }
                HPDF_Page_SetLineWidth(page, 0.25)
                HPDF_Page_MoveTo(page, 40, y + 8)
                HPDF_Page_LineTo(page, 572, y + 8)
                HPDF_Page_Stroke(page)
                y -= 6
            }
        }
        HPDF_SaveToFile(pdf, output.path)
        let status = HPDF_GetError(pdf)
        guard status == HPDF_OK else { throw Failed(status: UInt(status)) }
        return pages
    }
}
