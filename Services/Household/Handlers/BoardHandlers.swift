import Bus
import Contracts
import Envelope
import Foundation
import HouseholdContract
import NotificationsContract
import PostgresNIO
import PostgresSupport

/// `household.board.*`: the bulletin board. Any member posts and comments; the author changes and
/// deletes a post, and the owner may pin, unpin or delete any; an expired post is gone from every read.
/// A new post is pushed to the others; a comment to the post's author and its earlier commenters.
struct BoardHandlers: Sendable {
    let database: Database
    let board: BoardStore
    let photos: PhotoStore
    let access: HouseholdAccess
    let notifier: HouseholdNotifier

    static let notFound = OperationError(
        .notFound, "data.postId: the board has no such post", fields: [.init(field: "data.postId", message: "is not one of the board's posts")])

    @Sendable
    func prepareCreate(_ request: Household.Board.Create.Request, _ context: RequestContext) async throws
        -> (values: BoardStore.Values, photos: [UUID], request: Household.Board.Create.Request)
    {
        var validation = Validation()
        let title = request.title.trimmingCharacters(in: .whitespaces)
        validation.checkName(title, "data.title")
        let description = validation.checkText(request.description, "data.description", Household.Bounds.note, newlines: true)
        let photos = Self.photoIDs(request.photoIds, validation: &validation)
        try validation.finish()
        return (BoardStore.Values(title: title, description: description, pinned: request.pinned ?? false, expiresAt: request.expiresAt), photos, request)
    }

    @Sendable
    func create(_ prepared: (values: BoardStore.Values, photos: [UUID], request: Household.Board.Create.Request), _ context: RequestContext,
                on connection: PostgresConnection) async throws -> Household.Post {
        let member = try await access.member(of: prepared.request.householdId, context, on: connection)
        if let expires = prepared.values.expiresAt, expires <= database.now() {
            throw OperationError.invalid(field: "data.expiresAt", "must be in the future")
        }
        let id = try await board.create(prepared.values, in: member.household, by: member.member, on: connection)
        try await photos.attach(prepared.photos, to: .post, id, in: member.household, field: "data.photoIds", on: connection)
        guard let post = try await board.post(id, of: member.household, on: connection) else { throw Self.notFound }
        try await notifier.tell(
            .boardPosted, .init(household: member.household, resource: "post", id: id), except: member.member,
            title: "New on the board", body: prepared.values.title, on: connection)
        return post.view
    }

    @Sendable
    func list(_ request: Household.Board.List.Request, _ context: RequestContext) async throws -> Household.Board.List.Response {
        let limit = try request.page.checked()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let rows = try await board.list(of: member.household, limit: limit, before: request.after, on: connection)
            return .init(posts: rows.map(\.view), nextAfter: rows.count == limit ? rows.last?.key : nil)
        }
    }

    @Sendable
    func get(_ request: Household.Board.Reference, _ context: RequestContext) async throws -> Household.Post {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            return try await post(request.postId, of: member.household, on: connection).view
        }
    }

    @Sendable
    func update(_ request: Household.Board.Update.Request, _ context: RequestContext) async throws -> Household.Post {
        var validation = Validation()
        let title = request.title?.trimmingCharacters(in: .whitespaces)
        if let title { validation.checkName(title, "data.title") }
        let description = validation.checkText(request.description, "data.description", Household.Bounds.note, newlines: true)
        let photoIDs = request.photoIds.map { Self.photoIDs($0, validation: &validation) }
        try validation.finish()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let old = try await post(request.postId, of: member.household, locking: true, on: connection)
            let changesWords = title != nil || request.description != nil || photoIDs != nil || request.expiresAt != nil || request.keep != nil
            if changesWords, old.author != member.member { throw OperationError(.forbidden, "only its author changes a post") }
            if request.pinned != nil, old.author != member.member, member.role != .owner {
                throw OperationError(.forbidden, "only its author or the household's owner pins a post")
            }
            guard old.view.version == request.version else {
                throw OperationError.staleVersion(of: old.view, read: request.version, current: old.view.version, "post")
            }
            var values = old.values
            values.title = title ?? values.title
            if request.description != nil { values.description = description }
            values.pinned = request.pinned ?? values.pinned
            if let expires = request.expiresAt {
                guard expires > database.now() else { throw OperationError.invalid(field: "data.expiresAt", "must be in the future") }
                values.expiresAt = expires
            }
            if request.keep == true { values.expiresAt = nil }
            try await board.update(old.id, version: request.version, to: values, on: connection)
            if let photoIDs {
                try await photos.deleteAttached(to: .post, old.id, keeping: photoIDs, on: connection)
                try await photos.attach(photoIDs, to: .post, old.id, in: member.household, field: "data.photoIds", on: connection)
            }
            return try await post(request.postId, of: member.household, on: connection).view
        }
    }

    @Sendable
    func delete(_ request: Household.Board.Reference, _ context: RequestContext) async throws -> Household.Board.Delete.Response {
        try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let old = try await post(request.postId, of: member.household, locking: true, on: connection)
            guard old.author == member.member || member.role == .owner else {
                throw OperationError(.forbidden, "only its author or the household's owner deletes a post")
            }
            return .init(deleted: try await board.delete(old.id, on: connection))
        }
    }

    @Sendable
    func prepareComment(_ request: Household.Board.Comment.Request, _ context: RequestContext) async throws
        -> (text: String, request: Household.Board.Comment.Request)
    {
        (try Validation.commentText(request.text), request)
    }

    @Sendable
    func comment(_ prepared: (text: String, request: Household.Board.Comment.Request), _ context: RequestContext,
                 on connection: PostgresConnection) async throws -> Household.PostComment {
        let member = try await access.member(of: prepared.request.householdId, context, on: connection)
        let post = try await post(prepared.request.postId, of: member.household, on: connection)
        let comment = try await board.addComment(to: post.id, by: member.member, text: prepared.text, on: connection)
        // The post's author and those who commented before hear of it, the commenter not. It stays out
        // of the household's feed, which every member reads: it is told to those on the post's thread.
        let commenters = try await board.commenters(of: post.id, on: connection)
        let told = [post.author] + commenters
        try await notifier.tell(
            .boardCommented, .init(household: member.household, resource: "post", id: post.id), except: member.member, only: told, listed: false,
            title: "New comment: \(post.values.title)", body: prepared.text, on: connection)
        return comment
    }

    @Sendable
    func comments(_ request: Household.Board.Comments.Request, _ context: RequestContext) async throws -> Household.Board.Comments.Response {
        let limit = try PageRequest(limit: request.limit).checked()
        return try await database.transaction { connection in
            let member = try await access.member(of: request.householdId, context, on: connection)
            let post = try await post(request.postId, of: member.household, on: connection)
            let page = try await board.comments(of: post.id, limit: limit, after: request.after, on: connection)
            return .init(comments: page.map(\.comment), nextAfter: page.count == limit ? page.last?.seq : nil)
        }
    }

    private func post(_ id: String, of household: UUID, locking: Bool = false, on connection: PostgresConnection) async throws -> BoardStore.Row {
        guard let id = UUID(uuidString: id), let row = try await board.post(id, of: household, locking: locking, on: connection) else { throw Self.notFound }
        return row
    }

    /// Up to 4 distinct photo ids.
    static func photoIDs(_ raw: [String]?, validation: inout Validation) -> [UUID] {
        let ids = (raw ?? []).compactMap(UUID.init(uuidString:))
        validation.check(ids.count == (raw ?? []).count && Set(ids).count == ids.count && ids.count <= 4, "data.photoIds", "must be up to 4 distinct photo ids")
        return ids
    }
}
