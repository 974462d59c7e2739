extension Setting {
    /// The settings as a Markdown table (environment, flag, default, allowed values, meaning): the
    /// READMEs' settings tables are this, and a test keeps them so.
    public static func markdownTable(_ settings: [Setting]) -> String {
        var lines = ["| environment | flag | default | allowed | meaning |", "|---|---|---|---|---|"]
        for setting in settings {
            let value = setting.isSecret ? "(secret)" : setting.defaultValue.map { "`\($0)`" } ?? ""
            let help = setting.help.replacingOccurrences(of: "|", with: "\\|")
            lines.append("| `\(setting.environmentName)` | `\(setting.flag)` | \(value) | \(setting.kind.allowed ?? "") | \(help) |")
        }
        return lines.joined(separator: "\n")
    }
}
