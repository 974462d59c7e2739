import CHaru
import Foundation

/// How a text field of an official blank draws its value, as the field itself defines it: its box
/// (`/Rect`), font, size and color (`/DA`), alignment (`/Q`: left, centered, right) and, for a comb
/// (`/Ff` bit 25 with `/MaxLen`), one character centred in each of its cells. qpdf's own appearances
/// draw every value from the left in one run; these are drawn here instead, so a viewer that shows
/// the stored appearance (and a printer) puts each digit of an SSN in its cell and each amount
/// against the right of its box.
struct FieldAppearance: Sendable {
    /// Lower left and upper right corners, in points.
    let rect: [Double]
    /// The `/DA` font resource name (`/HelveticaLTStd-Bold`) and size (0: fitted to the box).
    let font: String
    let size: Double
    /// The `/DA` color operator (`0 0 0.502 rg`), or black.
    let color: String
    /// 0 left, 1 centered, 2 right.
    let quadding: Int
    /// The number of cells of a comb field.
    let combCells: Int?

    var width: Double { rect[2] - rect[0] }
    var height: Double { rect[3] - rect[1] }

    /// Reads a field's `/Rect`, `/DA` (or the form's), `/Q`, `/Ff` and `/MaxLen` as qpdf's JSON gives them.
    init?(field: [String: Any], formDA: String?) {
        guard let rect = (field["/Rect"] as? [Any])?.compactMap({ ($0 as? NSNumber)?.doubleValue }), rect.count == 4,
              let da = Self.text(field["/DA"]) ?? formDA
        else { return nil }
        let tokens = da.split(separator: " ").map(String.init)
        guard let tf = tokens.firstIndex(of: "Tf"), tf >= 2, let size = Double(tokens[tf - 1]) else { return nil }
        self.rect = [min(rect[0], rect[2]), min(rect[1], rect[3]), max(rect[0], rect[2]), max(rect[1], rect[3])]
        font = tokens[tf - 2]
        self.size = size
        if let operatorIndex = tokens.lastIndex(where: { $0 == "rg" || $0 == "g" }), operatorIndex >= (tokens[operatorIndex] == "rg" ? 3 : 1) {
            let count = tokens[operatorIndex] == "rg" ? 3 : 1
            color = tokens[(operatorIndex - count)...operatorIndex].joined(separator: " ")
        } else {
            color = "0 g"
        }
        quadding = (field["/Q"] as? NSNumber)?.intValue ?? 0
        let flags = (field["/Ff"] as? NSNumber)?.intValue ?? 0
        let maxLength = (field["/MaxLen"] as? NSNumber)?.intValue
        combCells = flags & (1 << 24) != 0 ? maxLength : nil
    }

    /// A qpdf JSON string (`u:text`, or `b:` hex bytes) as text.
    static func text(_ value: Any?) -> String? {
        guard let string = value as? String else { return nil }
        if string.hasPrefix("u:") { return String(string.dropFirst(2)) }
        if string.hasPrefix("b:") {
            var bytes: [UInt8] = []
            var hex = Substring(string.dropFirst(2))
            while hex.count >= 2, let byte = UInt8(hex.prefix(2), radix: 16) {
                bytes.append(byte)
                hex = hex.dropFirst(2)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return string
    }

    /// The content of the appearance stream (a form XObject whose box is the field's) drawing `value`.
    func content(_ value: String, metrics: FontMetrics) -> String {
        let characters = Array(value)
        let size = self.size > 0 ? self.size : min(height * 0.7, max(4, width / max(1, metrics.width(value, size: 1) + 0.5)))
        // The baseline centres the capital letters' height (Helvetica's is 0.718 of the size) in the box.
        let baseline = (height - 0.718 * size) / 2
        var drawn: [(x: Double, text: String)] = []
        if let cells = combCells, cells > 0 {
            let cell = width / Double(cells)
            for (index, character) in characters.prefix(cells).enumerated() {
                let text = String(character)
                drawn.append((Double(index) * cell + (cell - metrics.width(text, size: size)) / 2, text))
            }
        } else {
            let textWidth = metrics.width(value, size: size)
            let x: Double =
                switch quadding {
                case 1: (width - textWidth) / 2
                case 2: width - 2 - textWidth
                default: 2
                }
            drawn.append((max(0, x), value))
        }
        var lines = ["/Tx BMC", "q", "1 1 \(Self.number(width - 2)) \(Self.number(height - 2)) re W n", "BT", "\(font) \(Self.number(size)) Tf", color]
        var previous = 0.0
        for (index, part) in drawn.enumerated() {
            let dx = part.x - previous, dy = index == 0 ? baseline : 0
            lines.append("\(Self.number(dx)) \(Self.number(dy)) Td \(Self.literal(part.text)) Tj")
            previous = part.x
        }
        lines += ["ET", "Q", "EMC"]
        return lines.joined(separator: "\n")
    }

    static func number(_ value: Double) -> String { String(format: "%.2f", value) }

    /// A PDF literal string in WinAnsi bytes: `(`, `)` and `\` escaped, others outside ASCII in octal.
    static func literal(_ text: String) -> String {
        let bytes = text.data(using: .windowsCP1252, allowLossyConversion: true) ?? Data()
        var out = "("
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"): out += "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7E: out += String(UnicodeScalar(byte))
            default: out += String(format: "\\%03o", byte)
            }
        }
        return out + ")"
    }
}

/// Widths of the standard Helvetica Bold (the blanks' `HelveticaLTStd-Bold` has its metrics), from
/// libharu's copy of Adobe's font metrics.
final class FontMetrics {
    private let pdf: HPDF_Doc
    private let font: HPDF_Font

    init?() {
        guard let pdf = HPDF_New(nil, nil) else { return nil }
        guard let font = HPDF_GetFont(pdf, "Helvetica-Bold", "WinAnsiEncoding") else {
            HPDF_Free(pdf)
            return nil
        }
        self.pdf = pdf
        self.font = font
    }

    deinit { HPDF_Free(pdf) }

    /// The width of `text` at `size`, in points.
    func width(_ text: String, size: Double) -> Double {
        var bytes = Array(text.data(using: .windowsCP1252, allowLossyConversion: true) ?? Data())
        guard !bytes.isEmpty else { return 0 }
        let width = HPDF_Font_TextWidth(font, &bytes, UInt32(bytes.count))
        return Double(width.width) / 1000 * size
    }
}
