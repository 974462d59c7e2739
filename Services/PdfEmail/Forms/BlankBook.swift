import Crypto
import Foundation

/// The official fillable blanks shipped in `Blanks/` (`blanks.json`), checked and prepared when the
/// service starts: a missing or changed file, or a mapped field the PDF lacks, stops the start
/// instead of failing a user later.
struct BlankBook: Sendable {
    /// One field a line fills: its object in the prepared blank, and how it takes a value.
    struct Slot: Sendable {
        enum Kind: Sendable, Equatable {
            case text
            /// A checkbox, and the name of its "on" appearance (`/1`, `/Yes`).
            case checkbox(on: String)
        }

        let object: String
        let kind: Kind
        /// The field's `/MaxLen` (an SSN's comb of 9 cells), when it has one.
        let maxLength: Int?
        /// How a text field draws its value (nil for a checkbox, which has its own states).
        var appearance: FieldAppearance?

        /// `value` as the field takes it: when longer than the field allows, without its separators
        /// (`912-70-1234` into a 9-cell comb is `912701234`); nil when even that does not fit.
        func fitted(_ value: String) -> String? {
            guard let maxLength, value.count > maxLength else { return value }
            let compact = value.filter { $0.isLetter || $0.isNumber }
            return compact.count <= maxLength ? compact : nil
        }
    }

    /// A blank ready to fill: the file rewritten without object streams (qpdf updates objects in
    /// them unreliably), and the JSON of every object a fill rewrites.
    struct Blank: Sendable {
        let form: String
        let taxYear: Int
        let prepared: URL
        let pages: Int
        let slots: [String: Slot]
        /// `obj:N 0 R` → the object's dictionary as qpdf's JSON gives it.
        let objects: [String: JSONObject]
        let catalog: String
        let acroForm: String
        /// qpdf's JSON header of the prepared file, which an update repeats.
        let header: JSONObject
        /// The form's fonts (`/DR /Font`), for the appearance streams a fill adds.
        let fonts: JSONObject
        /// The first object number the file does not use (its trailer's `/Size`).
        let nextObject: Int
    }

    /// qpdf JSON dictionaries, kept as Foundation values so numbers keep their kind.
    struct JSONObject: @unchecked Sendable {
        let value: [String: Any]
    }

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    let blanks: [String: Blank]
    /// The folder the prepared blanks live in (removed with the process's temporary files).
    let folder: URL

    func blank(form: String, taxYear: Int) -> Blank? { blanks["\(form)/\(taxYear)"] }

    /// The blanks in the module's `Blanks` folder, prepared under `folder`.
    static func bundled(preparingIn folder: URL) throws -> BlankBook {
        try load(from: Bundle.module.resourceURL!.appendingPathComponent("Blanks"), preparingIn: folder)
    }

    static func load(from directory: URL, preparingIn folder: URL) throws -> BlankBook {
        struct File: Decodable {
            struct Entry: Decodable {
                let form: String
                let taxYear: Int
                let file: String
                let sha256: String
                let fields: [String: String]
            }

            let blanks: [Entry]
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: directory.appendingPathComponent("blanks.json")))
        var blanks: [String: Blank] = [:]
        for entry in file.blanks {
            let source = directory.appendingPathComponent(entry.file)
            guard let bytes = try? Data(contentsOf: source) else { throw Invalid(description: "the blank \(entry.file) is missing") }
            let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
            guard digest == entry.sha256 else {
                throw Invalid(description: "the blank \(entry.file) is not the pinned file (SHA-256 \(digest), expected \(entry.sha256))")
            }
            let prepared = folder.appendingPathComponent("\(entry.form)-\(entry.taxYear).pdf")
            _ = try QPDFRunner.run([source.path, "--object-streams=disable", "--deterministic-id", prepared.path])
            blanks["\(entry.form)/\(entry.taxYear)"] = try prepare(entry.form, entry.taxYear, prepared, fields: entry.fields)
        }
        return BlankBook(blanks: blanks, folder: folder)
    }

    private static func prepare(_ form: String, _ taxYear: Int, _ prepared: URL, fields: [String: String]) throws -> Blank {
        let json = try QPDFRunner.run(["--json=2", "--json-key=acroform", "--json-key=pages", "--json-key=qpdf", prepared.path]).output
        guard let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let acroform = root["acroform"] as? [String: Any], let listed = acroform["fields"] as? [[String: Any]],
              let pages = (root["pages"] as? [Any])?.count, pages > 0,
              let qpdf = root["qpdf"] as? [Any], qpdf.count == 2, let header = qpdf[0] as? [String: Any], let objects = qpdf[1] as? [String: Any],
              let trailer = (objects["trailer"] as? [String: Any])?["value"] as? [String: Any], let catalog = trailer["/Root"] as? String
        else { throw Invalid(description: "\(form) \(taxYear): qpdf's JSON has no form fields or no pages") }
        func dictionary(_ reference: String) -> [String: Any]? { (objects["obj:\(reference)"] as? [String: Any])?["value"] as? [String: Any] }
        /// A value that may be an indirect reference (`12 0 R`), resolved.
        func resolved(_ value: Any?) -> [String: Any]? { (value as? [String: Any]) ?? (value as? String).flatMap(dictionary) }
        guard let acroForm = dictionary(catalog)?["/AcroForm"] as? String, let acroFormValue = dictionary(acroForm),
              let size = (trailer["/Size"] as? NSNumber)?.intValue
        else { throw Invalid(description: "\(form) \(taxYear): no AcroForm") }
        let formDA = FieldAppearance.text(acroFormValue["/DA"])
        let fonts = resolved(resolved(acroFormValue["/DR"])?["/Font"]) ?? [:]
        let byName = Dictionary(listed.compactMap { field in (field["fullname"] as? String).map { ($0, field) } }) { first, _ in first }

        var slots: [String: Slot] = [:]
        var kept: [String: JSONObject] = [:]
        for (line, name) in fields {
            guard let field = byName[name], let object = field["object"] as? String, let value = dictionary(object) else {
                throw Invalid(description: "\(form) \(taxYear): line \(line)'s field \(name) is not in the blank")
            }
            let kind: Slot.Kind
            switch field["fieldtype"] as? String {
            case "/Tx": kind = .text
            case "/Btn" where field["ischeckbox"] as? Bool == true:
                let states = ((value["/AP"] as? [String: Any])?["/N"] as? [String: Any])?.keys.filter { $0 != "/Off" } ?? []
                guard states.count == 1, let on = states.first else { throw Invalid(description: "\(form) \(taxYear): checkbox \(name) has no single on state") }
                kind = .checkbox(on: on)
            default: throw Invalid(description: "\(form) \(taxYear): \(name) is neither text nor a checkbox")
            }
            var slot = Slot(object: "obj:\(object)", kind: kind, maxLength: (value["/MaxLen"] as? NSNumber)?.intValue)
            if kind == .text {
                guard let appearance = FieldAppearance(field: value, formDA: formDA), fonts[appearance.font] != nil else {
                    throw Invalid(description: "\(form) \(taxYear): text field \(name) has no box or no font of the form's")
                }
                slot.appearance = appearance
            }
            slots[line] = slot
            kept["obj:\(object)"] = JSONObject(value: value)
        }
        for reference in [catalog, acroForm] {
            guard let value = dictionary(reference) else { throw Invalid(description: "\(form) \(taxYear): \(reference) unreadable") }
            kept["obj:\(reference)"] = JSONObject(value: value)
        }
        return Blank(form: form, taxYear: taxYear, prepared: prepared, pages: pages, slots: slots, objects: kept, catalog: "obj:\(catalog)", acroForm: "obj:\(acroForm)",
            header: JSONObject(value: header), fonts: JSONObject(value: fonts), nextObject: size)
    }
}
