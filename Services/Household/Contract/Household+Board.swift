import Contracts
import Envelope
import Foundation

extension Household {
    /// A post on the household's bulletin board.
    public struct Post: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var authorId: String
        public var title: String
        public var description: String?
        /// Up to 4 household photos (`GET .../photos/{id}`, `size=thumbnail` for the thumbnail).
        public var photoIds: [String]
        public var pinned: Bool
        /// When it disappears from every read (it is deleted within the hour after).
        public var expiresAt: Date?
        public var comments: Int
        public var createdAt: Date
        public var updatedAt: Date
        public var version: Int

        public init(id: String, authorId: String, title: String, description: String?, photoIds: [String], pinned: Bool, expiresAt: Date?, comments: Int,
                    createdAt: Date, updatedAt: Date, version: Int) {
            self.id = id
            self.authorId = authorId
            self.title = title
            self.description = description
            self.photoIds = photoIds
            self.pinned = pinned
            self.expiresAt = expiresAt
            self.comments = comments
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.version = version
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "authorId": .uuid, "title": .personName, "photoIds": FieldRule.each(.uuid)]
    }

    /// A comment on a post.
    public struct PostComment: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var memberId: String
        public var at: Date
        public var text: String

        public init(id: String, memberId: String, at: Date, text: String) {
            self.id = id
            self.memberId = memberId
            self.at = at
            self.text = text
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "memberId": .uuid]
    }

    public enum Board {
        public struct Reference: Codable, Sendable, Equatable, FieldRules {
            public var householdId: String
            public var postId: String

            public init(householdId: String, postId: String) {
                self.householdId = householdId
                self.postId = postId
            }

            public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "postId": FieldRule.uuid.described("the post id")]
        }

        static let photoRule = FieldRule.count(0...4).each(.uuid).described("up to 4 photo ids of the household's, uploaded first")

        /// `household.board.create.v1`
        public enum Create: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.board.create.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/posts", name: "householdPostCreate", access: .member, status: .created, errors: [.notFound],
                summary: "Posts on the household's board, with up to 4 photos and an optional expiry; the others hear of it",
                example: #"{"title":"Party on Saturday","description":"Bring a chair","expiresAt":"2026-12-06T23:00:00Z"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var title: String
                public var description: String?
                public var photoIds: [String]?
                public var pinned: Bool?
                public var expiresAt: Date?

                public init(householdId: String, title: String, description: String? = nil, photoIds: [String]? = nil, pinned: Bool? = nil,
                            expiresAt: Date? = nil) {
                    self.householdId = householdId
                    self.title = title
                    self.description = description
                    self.photoIds = photoIds
                    self.pinned = pinned
                    self.expiresAt = expiresAt
                }

                public static let fieldRules: [String: FieldRule] = [
                    "householdId": .uuid, "title": .personName, "description": .text(Bounds.note), "photoIds": photoRule,
                ]
            }

            public typealias Response = Household.Post
        }

        /// `household.board.list.v1`
        public enum List: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.board.list.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/posts", name: "householdPostsList", access: .member, errors: [.notFound],
                summary: "The board: pinned posts first, then the newest; expired ones never (keyset paging)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var limit: Int?
                public var after: Int64?

                public init(householdId: String, limit: Int? = nil, after: Int64? = nil) {
                    self.householdId = householdId
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = PageRequest.fieldRules.merging(["householdId": .uuid]) { $1 }
                public var page: PageRequest { PageRequest(limit: limit, after: after) }
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var posts: [Household.Post]
                public var nextAfter: Int64?

                public init(posts: [Household.Post], nextAfter: Int64?) {
                    self.posts = posts
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": .nextPage]
            }
        }

        /// `household.board.get.v1`
        public enum Get: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.board.get.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/posts/{postId}", name: "householdPostGet", access: .member, errors: [.notFound], summary: "One post")]
            public typealias Request = Reference
            public typealias Response = Household.Post
        }

        /// `household.board.update.v1`
        public enum Update: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.board.update.v1"
            public static let http = [HTTPBinding(
                .patch, "/v1/households/{householdId}/posts/{postId}", name: "householdPostUpdate", access: .member,
                errors: [.notFound, .forbidden, .conflict],
                summary: "The author changes a post (the owner may pin or unpin any), naming the version read (409 with the post as it is)",
                example: #"{"version":1,"pinned":true}"#)]
            public static let idempotency: Idempotency? = .repeatable(because: "it sets the same values again, or finds the version moved on")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var postId: String
                public var version: Int
                public var title: String?
                public var description: String?
                public var photoIds: [String]?
                public var pinned: Bool?
                public var expiresAt: Date?
                /// True: it no longer expires.
                public var keep: Bool?

                public init(householdId: String, postId: String, version: Int, title: String? = nil, description: String? = nil,
                            photoIds: [String]? = nil, pinned: Bool? = nil, expiresAt: Date? = nil, keep: Bool? = nil) {
                    self.householdId = householdId
                    self.postId = postId
                    self.version = version
                    self.title = title
                    self.description = description
                    self.photoIds = photoIds
                    self.pinned = pinned
                    self.expiresAt = expiresAt
                    self.keep = keep
                }

                public static let fieldRules: [String: FieldRule] = [
                    "householdId": .uuid, "postId": .uuid, "version": .range(1...Int.max), "title": .personName, "description": .text(Bounds.note),
                    "photoIds": photoRule,
                ]
            }

            public typealias Response = Household.Post
        }

        /// `household.board.delete.v1`
        public enum Delete: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.board.delete.v1"
            public static let http = [HTTPBinding(
                .delete, "/v1/households/{householdId}/posts/{postId}", name: "householdPostDelete", access: .member, errors: [.notFound, .forbidden],
                summary: "Deletes a post with its photos and comments: its author, or the household's owner")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds no post and answers not_found")
            public typealias Request = Reference

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }

        /// `household.board.comment.v1`
        public enum Comment: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.board.comment.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/households/{householdId}/posts/{postId}/comments", name: "householdPostComment", access: .member, status: .created,
                errors: [.notFound], summary: "Comments on a post", example: #"{"text":"I'll bring crisps"}"#)]
            public static let idempotency: Idempotency? = .stored()

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var postId: String
                public var text: String

                public init(householdId: String, postId: String, text: String) {
                    self.householdId = householdId
                    self.postId = postId
                    self.text = text
                }

                public static let fieldRules: [String: FieldRule] = ["householdId": .uuid, "postId": .uuid, "text": .text(1...Bounds.note.upperBound)]
            }

            public typealias Response = Household.PostComment
        }

        /// `household.board.comments.v1`
        public enum Comments: OperationDeclaration {
            public static let service = Household.name
            public static let type = "household.board.comments.v1"
            public static let http = [HTTPBinding(
                .get, "/v1/households/{householdId}/posts/{postId}/comments", name: "householdPostComments", access: .member, errors: [.notFound],
                summary: "A post's comments, the oldest first (keyset paging: pass nextAfter as after)")]

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var householdId: String
                public var postId: String
                public var limit: Int?
                /// The previous page's `nextAfter`.
                public var after: Int64?

                public init(householdId: String, postId: String, limit: Int? = nil, after: Int64? = nil) {
                    self.householdId = householdId
                    self.postId = postId
                    self.limit = limit
                    self.after = after
                }

                public static let fieldRules: [String: FieldRule] = [
                    "householdId": .uuid, "postId": .uuid, "limit": PageRequest.fieldRules["limit"]!, "after": .range(1...Int64.max),
                ]
            }

            public struct Response: Codable, Sendable, Equatable, FieldRules {
                public var comments: [Household.PostComment]
                public var nextAfter: Int64?

                public init(comments: [Household.PostComment], nextAfter: Int64?) {
                    self.comments = comments
                    self.nextAfter = nextAfter
                }

                public static let fieldRules: [String: FieldRule] = ["nextAfter": FieldRule.described("pass as after for the next page; absent on the last page")]
            }
        }
    }
}
