import Foundation

/// Fills an official blank: each line's value into its field (checkboxes to their on state), the
/// XFA copy of the form and the usage-rights signature removed (both would contradict the filled
/// fields), and each text field's appearance stream drawn as the field defines it (comb cells,
/// alignment: `FieldAppearance`) so every viewer and printer shows the values where the form puts
/// them. `NeedAppearances` stays set, so a viewer that draws fields itself may do so.
enum AcroFormFiller {
    struct Unfillable: Error, CustomStringConvertible {
        let line: String
        let reason: String
        var description: String { "line \(line): \(reason)" }
    }

    /// Writes the filled blank to `output`; `values` are by line id, `X` checking a checkbox.
    /// `finish` are qpdf's job options for the file as it leaves (identity, encryption, compression)
    /// when this is the whole PDF, so no second pass is needed.
    static func fill(_ blank: BlankBook.Blank, values: [(line: String, value: String)], in folder: URL, output: URL, finish: [String: Any]) throws {
        var objects: [String: [String: Any]] = [:]
        var streams: [String: [String: Any]] = [:]
        func object(_ key: String) -> [String: Any] { objects[key] ?? blank.objects[key]!.value }
        guard let metrics = FontMetrics() else { throw Unfillable(line: "-", reason: "no font metrics (libharu)") }
        for (line, value) in values {
            guard let slot = blank.slots[line] else { throw Unfillable(line: line, reason: "the official \(blank.taxYear) \(blank.form) has no field for it") }
            var field = object(slot.object)
            switch slot.kind {
            case .text:
                guard let fitted = slot.fitted(value) else { throw Unfillable(line: line, reason: "longer than the field's \(slot.maxLength ?? 0) characters") }
                field["/V"] = "u:" + fitted
                if let appearance = slot.appearance {
                    let number = blank.nextObject + streams.count
                    streams["obj:\(number) 0 R"] = ["stream": [
                        "dict": [
                            "/Type": "/XObject", "/Subtype": "/Form", "/BBox": [0, 0, appearance.width, appearance.height],
                            "/Resources": ["/Font": [appearance.font: blank.fonts.value[appearance.font]!]],
                        ],
                        "data": Data(appearance.content(fitted, metrics: metrics).utf8).base64EncodedString(),
                    ]]
                    field["/AP"] = ["/N": "\(number) 0 R"]
                }
            case .checkbox(let on):
                guard value == "X" || value.isEmpty else { throw Unfillable(line: line, reason: "a checkbox takes X or nothing") }
                field["/V"] = value == "X" ? on : "/Off"
                field["/AS"] = value == "X" ? on : "/Off"
            }
            objects[slot.object] = field
        }
        var acroForm = object(blank.acroForm)
        acroForm["/XFA"] = nil
        acroForm["/NeedAppearances"] = true
        objects[blank.acroForm] = acroForm
        var catalog = object(blank.catalog)
        catalog["/Perms"] = nil
        objects[blank.catalog] = catalog

        let update: [String: Any] = ["version": 2, "qpdf": [blank.header.value, objects.mapValues { ["value": $0] }.merging(streams) { $1 }]]
        let updateFile = folder.appendingPathComponent("\(UUID().uuidString)-update.json")
        try JSONSerialization.data(withJSONObject: update).write(to: updateFile)
        _ = try QPDFRunner.run(job: [
            "inputFile": blank.prepared.path, "outputFile": output.path, "updateFromJson": updateFile.path,
        ].merging(finish) { _, finishing in finishing })
    }
}
