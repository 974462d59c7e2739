import Foundation

/// Renders a `MailMessage` as an RFC 5322 message with MIME (RFC 2045-2047): CRLF line ends,
/// UTF-8 bodies and attachments in base64 with 76-column lines, non-ASCII header text as encoded words.
/// The same bytes go to the SMTP server or the local spool.
public enum MIMEWriter {
    public static func render(_ message: MailMessage) -> [UInt8] {
        var out = Lines()
        out.header("Date", rfc5322Date(message.date))
        out.header("From", mailbox(message.from))
        out.header("To", message.to.map(mailbox).joined(separator: ", "))
        if let replyTo = message.replyTo { out.header("Reply-To", mailbox(replyTo)) }
        out.header("Subject", encodedWord(message.subject))
        out.header("Message-ID", "<\(message.id)@\(domain(of: message.senderAddress))>")
        out.header("MIME-Version", "1.0")

        let alternative = message.html.map { html in
            Part.multipart("alternative", boundary: boundary(message.id, "alt"), [.text("plain", message.text), .text("html", html)])
        } ?? .text("plain", message.text)
        let body = message.attachments.isEmpty
            ? alternative
            : .multipart("mixed", boundary: boundary(message.id, "mix"), [alternative] + message.attachments.map(Part.attachment))
        body.write(to: &out)
        return out.bytes
    }

    /// A MIME entity.
    indirect enum Part {
        case text(String, String)
        case attachment(MailMessage.Attachment)
        case multipart(String, boundary: String, [Part])

        func write(to out: inout Lines) {
            switch self {
            case .text(let subtype, let text):
                out.header("Content-Type", "text/\(subtype); charset=utf-8")
                out.header("Content-Transfer-Encoding", "base64")
                out.line("")
                out.base64(Array(text.utf8))
            case .attachment(let file):
                let name = quoted(file.name)
                out.header("Content-Type", "\(file.mediaType); name=\(name)")
                out.header("Content-Disposition", "attachment; filename=\(name)")
                out.header("Content-Transfer-Encoding", "base64")
                out.line("")
                out.base64(file.bytes)
            case .multipart(let subtype, let boundary, let parts):
                out.header("Content-Type", "multipart/\(subtype); boundary=\"\(boundary)\"")
                out.line("")
                for part in parts {
                    out.line("--\(boundary)")
                    part.write(to: &out)
                }
                out.line("--\(boundary)--")
            }
        }
    }

    /// Output with CRLF line ends.
    struct Lines {
        var bytes: [UInt8] = []

        mutating func line(_ text: String) {
            bytes.append(contentsOf: text.utf8)
            bytes.append(contentsOf: [0x0D, 0x0A])
        }

        mutating func header(_ name: String, _ value: String) {
            line("\(name): \(value)")
        }

        mutating func base64(_ data: [UInt8]) {
            let encoded = Data(data).base64EncodedString()
            var index = encoded.startIndex
            while index < encoded.endIndex {
                let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
                line(String(encoded[index..<end]))
                index = end
            }
        }
    }

    /// Header text as is when it is printable ASCII, else as RFC 2047 `=?UTF-8?B?...?=` words (each at
    /// most 75 characters, split between characters).
    static func encodedWord(_ text: String) -> String {
        if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return text }
        // 45 bytes become 60 base64 characters: with `=?UTF-8?B?` and `?=` a word stays within 75.
        var words: [[UInt8]] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append(chunk)
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?\(Data($0).base64EncodedString())?=" }.joined(separator: "\r\n ")
    }

    /// `Name <address>` with the name encoded when needed, or the bare address.
    static func mailbox(_ text: String) -> String {
        let address = MailMessage.address(in: text)
        guard let open = text.lastIndex(of: "<") else { return address }
        let name = text[..<open].trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? "<\(address)>" : "\(encodedWord(name)) <\(address)>"
    }

    /// A quoted MIME parameter; non-ASCII names become an encoded word inside the quotes, which
    /// mail programs accept for file names.
    static func quoted(_ name: String) -> String {
        let safe = name.replacingOccurrences(of: "\\", with: "_").replacingOccurrences(of: "\"", with: "_")
        return "\"\(encodedWord(safe))\""
    }

    static func boundary(_ id: String, _ kind: String) -> String { "=_melon_\(kind)_\(id)" }

    static func domain(of address: String) -> String {
        address.split(separator: "@").last.map(String.init) ?? "melon.local"
    }

    /// `Sat, 21 Nov 2026 17:55:14 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }
}
