import AsyncHTTPClient
import Envelope
import Foundation
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small HTTP client for tests that drive the API the way an app would.
public struct HTTPTestClient: Sendable {
    /// What came back.
    public struct Reply: Sendable {
        public let status: Int
        /// Header names lower-cased.
        public let headers: [String: String]
        public let body: [UInt8]

        public init(status: Int, headers: [String: String], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        public var json: JSONValue? { try? JSONValue.parse(body) }
        public var text: String { String(decoding: body, as: UTF8.self) }
        public func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    public let base: URL
    private let timeout: TimeInterval

    public init(base: URL, timeout: TimeInterval = 30) {
        self.base = base
        self.timeout = timeout
    }

    /// `method` `path` (with its query) with an optional body; JSON content type unless given.
    ///
    /// Sent with AsyncHTTPClient's shared client, whose deadline holds: FoundationNetworking's
    /// URLSession (libcurl) left a request of a loaded test run waiting for ever, past its own
    /// timeout and past the test's time limit, so the whole run never ended.
    public func send(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]) async throws -> Reply {
        guard let url = URL(string: path, relativeTo: base) else { throw URLError(.badURL) }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            request.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        }
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        var replyHeaders: [String: String] = [:]
        for header in response.headers {
            let name = header.name.lowercased()
            replyHeaders[name] = replyHeaders[name].map { "\($0), \(header.value)" } ?? header.value
        }
        return Reply(status: Int(response.status.code), headers: replyHeaders, body: Array(buffer: bytes))
    }

    /// POST of a JSON text.
    public func post(_ path: String, json: String, headers: [String: String] = [:]) async throws -> Reply {
        try await send("POST", path, body: Array(json.utf8), headers: headers)
    }

    public func get(_ path: String, headers: [String: String] = [:]) async throws -> Reply {
        try await send("GET", path, headers: headers)
    }
}
