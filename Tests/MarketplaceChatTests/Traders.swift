import Bus
import Contracts
import Crypto
import Envelope
import Foundation
import MarketplaceChatContract
@testable import MarketplaceChatService
import Media
import PostgresSupport
import Testing
import TestSupport

/// Every marketplace suite that runs a service stack in process is nested here: one test at a time,
/// so that on a 2-core machine they do not starve each other or the rest of the suite.
@Suite(.serialized, .timeLimit(.minutes(10))) struct MarketplaceStackTests {}

/// Aoife and Brian of Trinity College Dublin, Carla of University College Dublin: students who
/// signed the marketplace rules, in the marketplace app, as auth's tokens name them.
struct Traders {
    let aoife = UUID(), brian = UUID(), carla = UUID()

    static func caller(_ university: String?, _ username: String, rules: Bool = true, app: String = "marketplace") -> TestCaller {
        TestCaller(university: university, username: username, agreements: rules ? ["marketplace-rules", "terms"] : ["terms"], app: app)
    }

    func headers(_ http: InProcessHTTP) async throws -> (aoife: [String: String], brian: [String: String], carla: [String: String]) {
        (try await http.signedIn(aoife, as: Self.caller("tcd", "aoife")), try await http.signedIn(brian, as: Self.caller("tcd", "brian")),
         try await http.signedIn(carla, as: Self.caller("ucd", "carla")))
    }

    static func string(_ reply: HTTPTestClient.Reply, _ key: String) -> String? {
        if case .string(let value)? = reply.json?[key] { value } else { nil }
    }

    static func errorFields(_ reply: HTTPTestClient.Reply) -> Set<String> {
        guard case .array(let errors)? = reply.json?["fields"] else { return [] }
        return Set(errors.compactMap { error -> String? in if case .string(let field)? = error["field"] { field } else { nil } })
    }

    /// The array `key` of a reply.
    static func items(_ reply: HTTPTestClient.Reply, _ key: String) -> [JSONValue] {
        if case .array(let items)? = reply.json?[key] { items } else { [] }
    }

    /// The titles of a feed or search page, in order.
    static func titles(_ reply: HTTPTestClient.Reply) -> [String] {
        guard case .array(let listings)? = reply.json?["listings"] else { return [] }
        return listings.compactMap { if case .string(let title)? = $0["title"] { title } else { nil } }
    }

    static func upload(_ http: InProcessHTTP, _ headers: [String: String]) async throws -> String {
        let uploaded = try await http.send(
            "POST", "/v1/marketplace/photos", body: Array(ImageSamples.png40x30), headers: headers.merging(["Content-Type": "image/png"]) { $1 })
        #expect(uploaded.status == 201, "\(uploaded.text)")
        return try #require(string(uploaded, "id"))
    }

    /// Lists an item with one new photo; its id.
    static func list(_ http: InProcessHTTP, _ headers: [String: String], title: String, price: Int, category: String = "textbooks",
                     description: String = "", more: String = "") async throws -> String {
        let photo = try await upload(http, headers)
        let body = """
            {"title":"\(title)","description":"\(description)","priceMinorUnits":\(price),"category":"\(category)","condition":"good",
             "campus":"college-green","photoIds":["\(photo)"]\(more)}
            """
        let created = try await http.post("/v1/marketplace/listings", json: body, headers: headers)
        #expect(created.status == 201, "\(created.text)")
        return try #require(string(created, "id"))
    }

    static func patch(_ http: InProcessHTTP, _ path: String, _ json: String, _ headers: [String: String]) async throws -> HTTPTestClient.Reply {
        try await http.send("PATCH", path, body: Array(json.utf8), headers: headers)
    }

    /// Erases `account` as auth's outbox would have it erased; the reply.
    static func erase(_ account: UUID, in database: Database) async throws -> MarketplaceChat.Account.Erase.Response {
        let traderStore = TraderStore(database: database)
        // Erasure opens no sealed box: any key does.
        let moderation = ModerationStore(database: database, keys: KeyRing(current: SymmetricKey(size: .bits256)))
        let erasure = NetworkHandlers(
            database: database, traders: traderStore, photos: PhotoStore(database: database, media: MediaLibrary(database: database)),
            blocks: BlockStore(database: database), follows: FollowStore(database: database),
            conversations: ConversationStore(database: database), reviews: ReviewStore(database: database), offers: OfferStore(database: database),
            moderation: moderation, access: MarketAccess(traders: traderStore, moderation: moderation))
        let context = RequestContext(attributes: .init(source: "urn:melon:auth", type: MarketplaceChat.Account.Erase.type), logger: .init(label: "erase"), bus: nil)
        return try await erasure.erase(AccountErasure(account: account.uuidString.lowercased(), email: "someone@tcd.ie"), context)
    }
}
