import Bus
import Contracts
import Envelope
import Foundation
import MarketplaceChatContract
import NotificationsContract
import PostgresNIO
import PostgresSupport
import ServiceKit

/// `marketplace-chat.conversations.*` and `marketplace-chat.messages.*`: the chat of both apps.
/// A conversation another cannot see (not theirs, of the other app, across a block) answers as if it
/// did not exist.
struct ChatHandlers: Sendable {
    let database: Database
    let conversations: ConversationStore
    let messages: MessageStore
    let locations: LiveLocationStore
    let listings: ListingStore
    let blocks: BlockStore
    let access: ChatAccess
    /// The chat's live stream: each change is an item of the accounts it concerns.
    let live: LiveLog

    /// New conversations an account opens an hour, and messages it sends.
    static let opening = RateLimit("chat.conversations", count: 60, per: .seconds(3_600), message: "too many new conversations this hour; try again later")
    static let sending = RateLimit("chat.messages", count: 600, per: .seconds(3_600), message: "too many messages this hour; try again later")

    static let noConversation = OperationError(
        .notFound, "data.conversationId: you have no such conversation", fields: [.init(field: "data.conversationId", message: "is not one of your conversations")])
    static let noMessage = OperationError(
        .notFound, "data.messageId: you sent no such message here", fields: [.init(field: "data.messageId", message: "is not one of your messages here")])
    static let noListing = OperationError(
        .notFound, "data.listingId: there is no such listing in your network", fields: [.init(field: "data.listingId", message: "is not a listing of your network")])
    static let noUser = OperationError(
        .notFound, "data.username: no one chats under that name", fields: [.init(field: "data.username", message: "is not a Nebula user")])
    static let noProposal = OperationError(
        .notFound, "data.messageId: the other side proposed no such meeting here",
        fields: [.init(field: "data.messageId", message: "is not a meeting the other side proposed here")])
    static let otherGone = OperationError(.conflict, "the other side deleted their account: the conversation can be read, not answered")

    @Sendable
    func open(_ request: MarketplaceChat.Conversations.Open.Request, _ context: RequestContext) async throws -> MarketplaceChat.Conversation {
        try await database.transaction { connection in
            let caller = try await access.caller(context, recording: true, on: connection)
            let opened: (id: UUID, made: Bool)
            switch caller.kind {
            case .listing:
                guard request.username == nil else { throw OperationError.invalid(field: "data.username", "is for Nebula's private chats: name a listingId") }
                guard let text = request.listingId else { throw OperationError.invalid(field: "data.listingId", "must name the listing asked about") }
                opened = try await open(about: text, caller, on: connection)
            case .private:
                guard request.listingId == nil else { throw OperationError.invalid(field: "data.listingId", "is for the marketplace app: name a username") }
                guard let username = request.username else { throw OperationError.invalid(field: "data.username", "must name whom to chat with") }
                guard let other = try await conversations.chatter(named: username, on: connection), other != caller.account,
                      try await !blocks.between(other, caller.account, on: connection)
                else { throw Self.noUser }
                let pair = [caller.account, other].map(ListingStore.text).sorted()
                opened = try await conversations.open(
                    key: "private:\(pair[0]):\(pair[1])", kind: .private, listing: nil, university: nil, opener: caller.account, other: other, on: connection)
            }
            if opened.made { try await database.hit(Self.opening, [.account(caller.account.uuidString)], at: database.now(), on: connection) }
            return try await view(opened.id, for: caller, on: connection)
        }
    }

    /// The caller's conversation about listing `text` (of their network, active or reserved, not their
    /// own), opened unless it was; whether it was made now.
    private func open(about text: String, _ caller: ChatAccess.Caller, on connection: PostgresConnection) async throws -> (id: UUID, made: Bool) {
        guard let id = UUID(uuidString: text), let listing = try await listings.listing(id, on: connection),
              listing.university == caller.university, try await !blocks.between(listing.seller, caller.account, on: connection)
        else { throw Self.noListing }
        guard listing.seller != caller.account else { throw OperationError.invalid(field: "data.listingId", "is your own listing") }
        let key = "listing:\(ListingStore.text(id)):\(ListingStore.text(caller.account))"
        let askable = [.active, .reserved].contains(listing.view.state)
        if !askable, try await !conversations.exists(key: key, on: connection) { throw Self.noListing }
        try await conversations.recordSeller(listing.seller, on: connection)
        return try await conversations.open(
            key: key, kind: .listing, listing: id, university: caller.university, opener: caller.account, other: listing.seller, on: connection)
    }

    @Sendable
    func prepareAsk(_ request: MarketplaceChat.Conversations.Ask.Request, _ context: RequestContext) async throws
        -> (listingId: String, content: MessageStore.Content)
    {
        var validation = Validation()
        let text = Self.checkMessage(request.text, "data.text", &validation)
        try validation.finish()
        return (request.listingId, MessageStore.Content(text: text))
    }

    /// A buyer's question in one call: the conversation about the listing, opened or found, with the
    /// question as its next message.
    @Sendable
    func ask(_ prepared: (listingId: String, content: MessageStore.Content), _ context: RequestContext, on connection: PostgresConnection) async throws
        -> MarketplaceChat.Conversation
    {
        let caller = try await access.caller(context, recording: true, on: connection)
        guard caller.kind == .listing else { throw OperationError(.forbidden, "asking about a listing is for the marketplace app") }
        let opened = try await open(about: prepared.listingId, caller, on: connection)
        if opened.made { try await database.hit(Self.opening, [.account(caller.account.uuidString)], at: database.now(), on: connection) }
        guard let membership = try await conversations.membership(
            opened.id, of: caller.account, kind: .listing, university: caller.university, locking: true, on: connection)
        else { throw Self.noListing }
        _ = try await deliver(prepared.content, from: caller, in: membership, context, on: connection)
        return try await view(opened.id, for: caller, on: connection)
    }

    @Sendable
    func list(_ request: PageRequest, _ context: RequestContext) async throws -> MarketplaceChat.Conversations.List.Response {
        let limit = try request.checked()
        return try await database.transaction { connection in
            // The chat tab is where an app starts: its user becomes someone others can find.
            let caller = try await access.caller(context, recording: true, on: connection)
            let lines = try await conversations.lines(
                of: caller.account, kind: caller.kind, university: caller.university, before: request.after, limit: limit, on: connection)
            let last = try await messages.latest(in: lines.map(\.id), of: caller.account, on: connection)
            let views = lines.map { line in
                var view = line.view
                view.lastMessage = last[view.id]
                return view
            }
            return .init(conversations: views, nextAfter: lines.count == limit ? lines.last?.view.activity : nil)
        }
    }

    @Sendable
    func get(_ request: MarketplaceChat.Conversations.Reference, _ context: RequestContext) async throws -> MarketplaceChat.Conversation {
        try await database.transaction { connection in
            let (caller, membership) = try await member(request.conversationId, context, on: connection)
            return try await view(membership.conversation, for: caller, on: connection)
        }
    }

    @Sendable
    func delete(_ request: MarketplaceChat.Conversations.Reference, _ context: RequestContext) async throws
        -> MarketplaceChat.Conversations.Delete.Response
    {
        try await database.transaction { connection in
            let (_, membership) = try await member(request.conversationId, context, locking: true, on: connection)
            try await messages.deleteImages(try await conversations.clear(membership.conversation, side: membership.side, on: connection), on: connection)
            return .init(deleted: true)
        }
    }

    @Sendable
    func setTimer(_ request: MarketplaceChat.Conversations.Timer.Request, _ context: RequestContext) async throws -> MarketplaceChat.Conversation {
        guard MarketplaceChat.timers.contains(request.seconds) else {
            throw OperationError.invalid(field: "data.seconds", "must be one of \(MarketplaceChat.timers.map(String.init).joined(separator: ", "))")
        }
        return try await database.transaction { connection in
            let (caller, membership) = try await member(request.conversationId, context, recording: true, locking: true, on: connection)
            guard membership.other != nil else { throw Self.otherGone }
            if try await conversations.setTimer(request.seconds, of: membership.conversation, on: connection) {
                let announced = try await messages.append(
                    .init(timer: .init(seconds: request.seconds)), to: membership.conversation, from: membership.side, timerSeconds: 0, flagged: false,
                    on: connection)
                try await live.append(
                    "message", ChatLive.MessageRef(c: membership.conversation, s: announced.seq), for: [caller.account] + [membership.other].compactMap { $0 },
                    on: connection)
            }
            return try await view(membership.conversation, for: caller, on: connection)
        }
    }

    @Sendable
    func prepareSend(_ request: MarketplaceChat.Messages.Send.Request, _ context: RequestContext) async throws
        -> (conversationId: String, content: MessageStore.Content)
    {
        var validation = Validation()
        let given = [request.text != nil, request.meeting != nil, request.location != nil].filter { $0 }.count
        validation.check(given == 1, "data", "must carry exactly one of text, meeting and location")
        var content = MessageStore.Content()
        if let raw = request.text {
            content.text = Self.checkMessage(raw, "data.text", &validation)
        }
        if let meeting = request.meeting {
            var checked = meeting
            checked.name = meeting.name.flatMap { validation.checkText($0, "data.meeting.name", 1...200) }
            validation.check((meeting.spotId != nil) != (meeting.point != nil), "data.meeting", "must name a spotId or a point of your own (with a name)")
            if meeting.point != nil { validation.check(checked.name != nil, "data.meeting.name", "must say the place in words") }
            if let point = meeting.point { Self.check(point, "data.meeting.point", &validation) }
            content.meeting = checked
        }
        if let point = request.location {
            Self.check(point, "data.location", &validation)
            content.location = point
        }
        try validation.finish()
        return (request.conversationId, content)
    }

    @Sendable
    func send(_ prepared: (conversationId: String, content: MessageStore.Content), _ context: RequestContext, on connection: PostgresConnection)
        async throws -> MarketplaceChat.Messages.Send.Response
    {
        let (caller, membership) = try await member(prepared.conversationId, context, recording: true, locking: true, on: connection)
        return try await deliver(prepared.content, from: caller, in: membership, context, on: connection)
    }

    /// Sends `content` from the caller's side of `membership` (its conversation's row held): sealed,
    /// scanned in listing conversations, live to both sides, pushed to a recipient without a socket.
    func deliver(_ content: MessageStore.Content, image: UUID? = nil, from caller: ChatAccess.Caller, in membership: ConversationStore.Membership,
                         _ context: RequestContext, on connection: PostgresConnection) async throws -> MarketplaceChat.Messages.Send.Response {
        guard let other = membership.other else { throw Self.otherGone }
        try await database.hit(Self.sending, [.account(caller.account.uuidString)], at: database.now(), on: connection)
        var content = content
        if var meeting = content.meeting, let spotId = meeting.spotId {
            guard let university = caller.university,
                  let spot = try await blocks.spots(of: university, campus: nil, on: connection).first(where: { $0.id == spotId })
            else { throw OperationError.invalid(field: "data.meeting.spotId", "is not a safe spot of your network") }
            meeting.name = spot.name
            meeting.point = .init(latitude: spot.latitude, longitude: spot.longitude)
            content.meeting = meeting
        }
        let scanned = [content.text, content.meeting?.name].compactMap { $0 }
        let flagged = caller.kind == .listing && scanned.contains(where: ContactScan.looksLikeContact)
        let sent = try await messages.append(
            content, to: membership.conversation, from: membership.side, timerSeconds: membership.timerSeconds, flagged: flagged, image: image,
            on: connection)
        try await live.append("message", ChatLive.MessageRef(c: membership.conversation, s: sent.seq), for: [caller.account, other], on: connection)
        // A recipient with a socket open gets it there; a push tells the others.
        if try await !live.isPresent(other, on: connection) {
            try await push(to: other, in: membership.conversation, kind: caller.kind, from: context.attributes.username ?? "Someone", on: connection)
        }
        return sent
    }

    @Sendable
    func history(_ request: MarketplaceChat.Messages.List.Request, _ context: RequestContext) async throws -> MarketplaceChat.Messages.List.Response {
        let limit = try request.page.checked()
        return try await database.transaction { connection in
            let (caller, membership) = try await member(request.conversationId, context, on: connection)
            let page = try await messages.messages(in: membership.conversation, of: caller.account, before: request.after, limit: limit, on: connection)
            return .init(messages: page, nextAfter: page.count == limit ? page.last?.seq : nil)
        }
    }

    @Sendable
    func read(_ request: MarketplaceChat.Messages.Read.Request, _ context: RequestContext) async throws -> MarketplaceChat.Messages.Read.Response {
        try await database.transaction { connection in
            let (_, membership) = try await member(request.conversationId, context, on: connection)
            let read = try await messages.read(membership.conversation, side: membership.side, through: request.throughSeq, on: connection)
            if let other = membership.other, read.now > read.before {
                try await live.append("read", ChatLive.ReadRef(c: membership.conversation, t: read.now), for: [other], on: connection)
            }
            return .init(readThrough: read.now)
        }
    }

    @Sendable
    func deleteMessage(_ request: MarketplaceChat.Messages.Delete.Request, _ context: RequestContext) async throws
        -> MarketplaceChat.Messages.Delete.Response
    {
        try await database.transaction { connection in
            let (caller, membership) = try await member(request.conversationId, context, on: connection)
            guard let id = UUID(uuidString: request.messageId), try await messages.delete(id, in: membership.conversation, side: membership.side, on: connection)
            else { throw Self.noMessage }
            try await live.append(
                "deleted", ChatLive.DeletedRef(c: membership.conversation, m: id), for: [caller.account] + [membership.other].compactMap { $0 }, on: connection)
            return .init(deleted: true)
        }
    }

    /// The gateway's catch-up of a chat socket, which also says whether the caller has one open.
    @Sendable
    func sync(_ request: LiveSync.Request, _ context: RequestContext) async throws -> LiveSync.Response {
        try await database.transaction { connection in
            let caller = try await access.caller(context, on: connection)
            return try await live.sync(caller.account, request, on: connection)
        }
    }

    // MARK: - Parts

    /// The caller and their side of conversation `reference`, or `noConversation`.
    func member(_ reference: String, _ context: RequestContext, recording: Bool = false, locking: Bool = false,
                        on connection: PostgresConnection) async throws -> (ChatAccess.Caller, ConversationStore.Membership) {
        let caller = try await access.caller(context, recording: recording, on: connection)
        guard let id = UUID(uuidString: reference),
              let membership = try await conversations.membership(
                  id, of: caller.account, kind: caller.kind, university: caller.university, locking: locking, on: connection)
        else { throw Self.noConversation }
        return (caller, membership)
    }

    private func view(_ id: UUID, for caller: ChatAccess.Caller, on connection: PostgresConnection) async throws -> MarketplaceChat.Conversation {
        guard var view = try await conversations.lines(
            of: caller.account, kind: caller.kind, university: caller.university, only: id, before: nil, limit: 1, on: connection).first?.view
        else { throw Self.noConversation }
        view.lastMessage = try await messages.latest(in: [id], of: caller.account, on: connection)[view.id]
        return view
    }

    /// Tells the other side a message came, without its content (through notifications' outbox).
    func push(to account: UUID, in conversation: UUID, kind: MarketplaceChat.ConversationKind, from username: String,
                      body: String = "New message", on connection: PostgresConnection) async throws {
        let event = kind == .listing ? Notifications.EventType.chatMessage : .privateChatMessage
        let thread = "conversation-\(ListingStore.text(conversation))"
        let content = Notifications.Content(
            app: event.app, eventType: event.name, category: event.category, alert: .init(title: username, body: body),
            data: ["conversationId": ListingStore.text(conversation)], collapseKey: thread, threadID: thread)
        try await database.enqueue(Notifications.Push.Send.self, .init(recipients: [ListingStore.text(account)], content: content), on: connection)
    }

    /// A message's text: kept as typed (newlines and emoji included), without control characters or
    /// the invisible direction overrides that disguise links.
    static func checkMessage(_ raw: String, _ field: String, _ validation: inout Validation) -> String? {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let hidden = text.unicodeScalars.contains { scalar in
            (scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\t")
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
        let fits = MarketplaceChat.Bounds.messageText.contains(text.unicodeScalars.count)
        validation.check(fits && !hidden, field, "must be 1 to \(MarketplaceChat.Bounds.messageText.upperBound) characters without control characters")
        return text.isEmpty ? nil : text
    }

    static func check(_ point: MarketplaceChat.Point, _ field: String, _ validation: inout Validation) {
        validation.check((-90...90).contains(point.latitude) && (-180...180).contains(point.longitude), field,
                         "must be WGS 84 degrees: latitude -90 to 90, longitude -180 to 180")
    }
}
