import Foundation

/// The mail templates: one folder per template holding `subject.txt`, `body.txt` and `body.html`, with
/// `{{variable}}` placeholders. Values are inserted as text: HTML-escaped in the HTML body, line breaks
/// removed from the subject. Adding a template is adding a folder.
public struct MailTemplates: Sendable {
    /// A template's three parts and the variables they use.
    public struct Template: Sendable {
        public let subject: String
        public let text: String
        public let html: String
        public let variables: Set<String>
    }

    /// What rendering needs but did not get.
    public enum Problem: Error, Equatable, Sendable {
        case unknownTemplate(String)
        case missingVariable(String)
    }

    public let templates: [String: Template]

    /// The templates shipped with the service.
    public static func bundled() throws -> MailTemplates {
        try load(from: Bundle.module.resourceURL!.appendingPathComponent("Templates"))
    }

    public static func load(from folder: URL) throws -> MailTemplates {
        var templates: [String: Template] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let directory = folder.appendingPathComponent(name)
            func part(_ file: String) throws -> String {
                try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                    .trimmingCharacters(in: .newlines)
            }
            let (subject, text, html) = (try part("subject.txt"), try part("body.txt"), try part("body.html"))
            templates[name] = Template(
                subject: subject, text: text, html: html,
                variables: Set([subject, text, html].flatMap { placeholders(in: $0) }))
        }
        return MailTemplates(templates: templates)
    }

    /// Subject, text and HTML of `name` with `variables` filled in.
    public func render(_ name: String, variables: [String: String]) throws(Problem) -> (subject: String, text: String, html: String) {
        guard let template = templates[name] else { throw .unknownTemplate(name) }
        if let missing = template.variables.subtracting(variables.keys).sorted().first { throw .missingVariable(missing) }
        return (
            Self.fill(template.subject, variables) { $0.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ") },
            Self.fill(template.text, variables) { $0 },
            Self.fill(template.html, variables, escape: Self.escapeHTML))
    }

    static func placeholders(in text: String) -> [String] {
        text.matches(of: /\{\{([A-Za-z][A-Za-z0-9]*)\}\}/).map { String($0.1) }
    }

    static func fill(_ text: String, _ variables: [String: String], escape: (String) -> String) -> String {
        text.replacing(/\{\{([A-Za-z][A-Za-z0-9]*)\}\}/) { match in escape(variables[String(match.1)] ?? "") }
    }

    static func escapeHTML(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
