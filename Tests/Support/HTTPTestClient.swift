import Envelope
import Foundation
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

        public var json: JSONValue? { try? JSONValue.parse(body) }
        public var text: String { String(decoding: body, as: UTF8.self) }
        public func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    public let base: URL
    private let session: URLSession

    public init(base: URL, timeout: TimeInterval = 30) {
        self.base = base
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.urlCache = nil  // what the server answers (a 304 too), not a cache's copy
        session = URLSession(configuration: configuration)
    }

    /// `method` `path` (with its query) with an optional body; JSON content type unless given.
    public func send(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var replyHeaders: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { replyHeaders[name.lowercased()] = value }
        }
        return Reply(status: http.statusCode, headers: replyHeaders, body: Array(data))
    }

    /// POST of a JSON text.
    public func post(_ path: String, json: String, headers: [String: String] = [:]) async throws -> Reply {
        try await send("POST", path, body: Array(json.utf8), headers: headers)
    }

    public func get(_ path: String, headers: [String: String] = [:]) async throws -> Reply {
        try await send("GET", path, headers: headers)
    }
}
