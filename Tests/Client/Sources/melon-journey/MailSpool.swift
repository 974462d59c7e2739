import Foundation

/// The `.eml` files `melon` writes when no SMTP server is set (`MAIL_SPOOL_DIR`): where a signing-up
/// user's code arrives.
struct MailSpool {
    var folder: URL

    struct NoCode: Error, CustomStringConvertible {
        var description: String
    }

    /// The verification code in the newest mail to `address`, waiting up to `limit` for it.
    func code(to address: String, within limit: Duration) async throws -> String {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let code = try newestCode(to: address) { return code }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw NoCode(description: "no mail with a code to \(address) in \(folder.path) within \(limit)")
    }

    private func newestCode(to address: String) throws -> String? {
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        for file in files.filter({ $0.pathExtension == "eml" }).sorted(by: { $0.lastPathComponent > $1.lastPathComponent }) {
            let text = try String(contentsOf: file, encoding: .utf8)
            let headers = text.components(separatedBy: "\r\n\r\n").first ?? text
            guard headers.split(whereSeparator: \.isNewline).contains(where: { $0.hasPrefix("To:") && $0.lowercased().contains(address.lowercased()) }),
                  let match = headers.firstMatch(of: /Subject: Your Melon verification code: ([0-9]{6})/)
            else { continue }
            return String(match.1)
        }
        return nil
    }
}
