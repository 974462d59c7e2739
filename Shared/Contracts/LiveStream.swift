import Envelope

/// A stream of events a service pushes to signed-in clients: the gateway serves it as a WebSocket
/// at `/v1/live/<name>` and fans each event out to the sockets of the account it names, from any
/// number of gateways (the events cross the broker's live-event proxy). Live delivery is best effort;
/// the database is the source of truth: every event is an item of the account's log with a cursor
/// that only grows, and the stream's `sync` operation answers the items after a cursor. A client
/// that (re)connects with its last cursor gets what it missed, then the live items, in order.
public struct LiveStream: Sendable {
    /// Its path segment (`chat`): unique among all services' streams.
    public let name: String
    /// The service that publishes it.
    public let service: String
    public let summary: String
    /// Its events: each one's `type` and what its `data` holds.
    public let events: [LiveEventDeclaration]
    /// The catch-up operation (`<service>.live-<name>.sync.v1`): the caller's items after a cursor,
    /// and the caller's presence (a recipient with an open socket gets no push).
    public let sync: any OperationDeclaration.Type
    /// Whose sessions may open it: the gateway refuses another app's before the socket opens.
    public let apps: AppScope

    public init(name: String, service: String, summary: String, events: [LiveEventDeclaration], sync: any OperationDeclaration.Type, apps: AppScope) {
        self.name = name
        self.service = service
        self.summary = summary
        self.events = events
        self.sync = sync
        self.apps = apps
    }

    /// The topic its items cross the proxy under: `live.<service>.<name>`.
    public var topic: String { "live.\(service).\(name)" }
}

/// One kind of event of a live stream.
public struct LiveEventDeclaration: Sendable {
    public let type: String
    public let summary: String
    /// What `data` holds (for the API document).
    public let data: any (Codable & Sendable).Type

    public init(type: String, summary: String, data: any (Codable & Sendable).Type) {
        self.type = type
        self.summary = summary
        self.data = data
    }
}

/// An event as a client gets it on its socket, and as `sync` answers it.
public struct LiveItem: Codable, Sendable, Equatable {
    /// Its place in the account's log: a client resumes after the last one it got.
    public var cursor: Int64
    public var type: String
    public var data: JSONValue

    public init(cursor: Int64, type: String, data: JSONValue) {
        self.cursor = cursor
        self.type = type
        self.data = data
    }
}

/// An item's `data`: any JSON, as its stream's declaration of the event says (a message of 4,000
/// characters fits).
extension JSONValue: SchemaAnyValue {
    public static var schemaSample: JSONValue { .null }
    public static var schemaBounds: AnyValueBounds { AnyValueBounds(depth: 8, bytes: 65_536) }
}

/// A live item for one account, as it crosses the broker's proxy.
public struct LiveNote: Codable, Sendable, Equatable {
    public var account: String
    public var item: LiveItem

    public init(account: String, item: LiveItem) {
        self.account = account
        self.item = item
    }
}

/// The request and reply of every stream's `sync` operation.
public enum LiveSync {
    /// What the gateway says of the caller's socket.
    public enum Presence: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        /// A socket opened (or is still open: renewed every half minute).
        case open
        /// The socket closed.
        case closed
    }

    public struct Request: Codable, Sendable, Equatable, FieldRules {
        /// The last cursor the client got; absent: from now on.
        public var after: Int64?
        public var presence: Presence

        public init(after: Int64?, presence: Presence) {
            self.after = after
            self.presence = presence
        }

        public static let fieldRules: [String: FieldRule] = ["after": FieldRule.range(0...Int64.max).described("the last cursor the client got")]
    }

    public struct Response: Codable, Sendable, Equatable, FieldRules {
        /// The items after `after`, oldest first (at most `LiveSync.pageSize`: ask again after the last).
        public var items: [LiveItem]
        /// The account's latest cursor.
        public var cursor: Int64
        /// True when `after` is older than what the log keeps: reload from the routes, then go on from `cursor`.
        public var reset: Bool
        /// True when more items follow `cursor`: ask again after it.
        public var more: Bool

        public init(items: [LiveItem], cursor: Int64, reset: Bool, more: Bool = false) {
            self.items = items
            self.cursor = cursor
            self.reset = reset
            self.more = more
        }

        public static let fieldRules: [String: FieldRule] = ["cursor": .described("the account's latest cursor")]
    }

    /// Items one sync answers at most.
    public static let pageSize = 200
}
