import CCurl
import Foundation
import NIOPosix
import ServiceSupport

/// SMTP through libcurl: `smtp://` upgrades with STARTTLS, `smtps://` is TLS from the start; AUTH with
/// the configured credentials. `smtp://` insists on STARTTLS with credentials or with a server outside
/// loopback, so neither a password nor a mail (codes, personal data) crosses a network in the clear;
/// only a relay on this host may speak plain SMTP. Certificates are verified against
/// the system's CAs or `caFile`. libcurl blocks, so each send runs on NIO's blocking-work thread pool,
/// never on a Swift concurrency thread.
///
/// Only the server refusing the mail (a 5xx reply to MAIL, RCPT or DATA) is permanent. A refused
/// login is a configuration problem, not the mail's: it stays temporary, so mail waits for the fix.
public struct SMTPTransport: MailTransport {
    public struct Configuration: Sendable {
        /// `smtp://host:port` or `smtps://host:port`; credentials here or in `user` / `password`.
        public var url: String
        public var user: String?
        public var password: String?
        public var timeout: Duration
        /// A PEM file of CA certificates to trust instead of the system's (a private mail relay).
        public var caFile: String?

        public init(url: String, user: String? = nil, password: String? = nil, timeout: Duration = .seconds(30), caFile: String? = nil) {
            self.url = url
            self.user = user
            self.password = password
            self.timeout = timeout
            self.caFile = caFile
        }

        /// Whether AUTH credentials are configured, here or in the URL.
        var hasCredentials: Bool {
            user?.isEmpty == false || password?.isEmpty == false || URLComponents(string: url)?.user?.isEmpty == false
        }

        /// Whether the session must be encrypted: with credentials, or with a server beyond loopback
        /// (`localhost`, 127.0.0.0/8, ::1 may be plain).
        public var requiresTLS: Bool {
            guard !hasCredentials, var host = URLComponents(string: url)?.host?.lowercased() else { return true }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return !(host == "localhost" || Self.loopback.contains { $0.contains(host) })
        }

        private static let loopback = ["127.0.0.0/8", "::1/128"].compactMap(IPNetwork.init)
    }

    public let configuration: Configuration
    private let pool: NIOThreadPool

    public init(configuration: Configuration, pool: NIOThreadPool = .singleton) {
        Self.globalInit
        self.configuration = configuration
        self.pool = pool
    }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    public func send(_ message: [UInt8], from sender: String, to recipients: [String]) async throws(MailDeliveryError) {
        let configuration = configuration
        let outcome: Result<Void, MailDeliveryError>
        do {
            outcome = try await pool.runIfActive { Self.perform(message, from: sender, to: recipients, configuration: configuration) }
        } catch {
            throw MailDeliveryError(permanent: false, code: nil, reply: "the SMTP thread pool is not running")
        }
        try outcome.get()
    }

    /// One blocking SMTP transaction.
    private static func perform(_ message: [UInt8], from sender: String, to recipients: [String], configuration: Configuration) -> Result<Void, MailDeliveryError> {
        guard let handle = curl_easy_init() else {
            return .failure(MailDeliveryError(permanent: false, code: nil, reply: "libcurl could not start a transfer"))
        }
        defer { curl_easy_cleanup(handle) }
        var recipientList: UnsafeMutablePointer<curl_slist>?
        for recipient in recipients { recipientList = curl_slist_append(recipientList, "<\(recipient)>") }
        defer { curl_slist_free_all(recipientList) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let upload = Upload(message)

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            melon_curl_setopt_string(handle, CURLOPT_URL, configuration.url)
            let tls = configuration.requiresTLS ? CURLUSESSL_ALL : CURLUSESSL_TRY
            melon_curl_setopt_long(handle, CURLOPT_USE_SSL, Int(tls.rawValue))
            if let caFile = configuration.caFile { melon_curl_setopt_string(handle, CURLOPT_CAINFO, caFile) }
            if let user = configuration.user { melon_curl_setopt_string(handle, CURLOPT_USERNAME, user) }
            if let password = configuration.password { melon_curl_setopt_string(handle, CURLOPT_PASSWORD, password) }
            melon_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(sender)>")
            melon_curl_setopt_slist(handle, CURLOPT_MAIL_RCPT, recipientList)
            melon_curl_setopt_long(handle, CURLOPT_UPLOAD, 1)
            melon_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(configuration.timeout.components.seconds * 1000))
            melon_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 10_000)
            melon_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            melon_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            melon_curl_setopt_read_function(handle, Upload.read)
            return withExtendedLifetime(upload) {
                melon_curl_setopt_pointer(handle, CURLOPT_READDATA, Unmanaged.passUnretained(upload).toOpaque())
                return curl_easy_perform(handle)
            }
        }
        guard code != CURLE_OK else { return .success(()) }

        var response = 0
        melon_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &response)
        let written = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let detail = written.isEmpty ? String(cString: curl_easy_strerror(code)) : written
        if code == CURLE_LOGIN_DENIED {
            return .failure(MailDeliveryError(
                permanent: false, code: response == 0 ? nil : response,
                reply: "the SMTP server refused the login (check SMTP_USER and SMTP_PASSWORD): \(detail)"))
        }
        let refused = (500...599).contains(response)
        return .failure(MailDeliveryError(permanent: refused, code: response == 0 ? nil : response, reply: detail))
    }

    /// The message bytes libcurl reads through its read callback.
    private final class Upload {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        static let read: curl_read_callback = { buffer, size, count, userData in
            guard let buffer, let userData else { return 0 }
            let upload = Unmanaged<Upload>.fromOpaque(userData).takeUnretainedValue()
            let length = min(size * count, upload.bytes.count - upload.offset)
            guard length > 0 else { return 0 }
            upload.bytes.withUnsafeBufferPointer { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + upload.offset, byteCount: length)
            }
            upload.offset += length
            return length
        }
    }
}
