import Contracts
import Envelope
import Foundation

extension MarketplaceChat {
    /// What kind of conversation: about a listing (the marketplace app: its buyer and its seller) or
    /// private (the Nebula app: any two signed-in users).
    public enum ConversationKind: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case listing
        case `private`
    }

    /// The disappearing-messages timers one may set, in seconds: off, 30 s, 5 min, 1 h, 1 day, 1 week.
    public static let timers = [0, 30, 300, 3_600, 86_400, 604_800]

    /// The other side of a conversation, by username only.
    public struct Participant: Codable, Sendable, Equatable, FieldRules {
        /// Absent once their account is deleted.
        public var id: String?
        /// "a deleted user" once their account is deleted.
        public var username: String

        public init(id: String?, username: String) {
            self.id = id
            self.username = username
        }

        public static let deleted = Participant(id: nil, username: "a deleted user")
        public static let fieldRules: [String: FieldRule] = ["id": .uuid]
    }

    /// The listing a conversation is about, as it is now.
    public struct ConversationListing: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var title: String
        public var state: ListingState
        /// Whether the caller sells it (else they asked about it).
        public var mine: Bool

        public init(id: String, title: String, state: ListingState, mine: Bool) {
            self.id = id
            self.title = title
            self.state = state
            self.mine = mine
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid]
    }

    /// One line of the chat tab.
    public struct Conversation: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        public var kind: ConversationKind
        /// Absent for a private conversation, or once the listing's seller deleted their account.
        public var listing: ConversationListing?
        public var with: Participant
        /// The disappearing-messages timer in force, in seconds (0: off).
        public var timerSeconds: Int
        /// The latest message the caller may still read.
        public var lastMessage: Message?
        /// Messages of the other side the caller has not read.
        public var unread: Int
        public var createdAt: Date
        /// The conversation's place in the chat tab: pass as `after` for the conversations below it.
        public var activity: Int64

        public init(id: String, kind: ConversationKind, listing: ConversationListing?, with: Participant, timerSeconds: Int, lastMessage: Message?,
                    unread: Int, createdAt: Date, activity: Int64) {
            self.id = id
            self.kind = kind
            self.listing = listing
            self.with = with
            self.timerSeconds = timerSeconds
            self.lastMessage = lastMessage
            self.unread = unread
            self.createdAt = createdAt
            self.activity = activity
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid, "timerSeconds": .described("0 (off), 30, 300, 3600, 86400 or 604800")]
    }

    /// What a message carries.
    public enum MessageKind: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case text
        /// A proposed meeting point: a safe spot of the network, or a point of the users' choosing.
        case meeting
        /// A location shared once.
        case location
        /// A picture (served by `GET /v1/conversations/{id}/messages/{messageId}/image`).
        case image
        /// The disappearing-messages timer was set (to `timer.seconds`).
        case timer
    }

    /// A point on the map (WGS 84 degrees).
    public struct Point: Codable, Sendable, Equatable, FieldRules {
        public var latitude: Double
        public var longitude: Double

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }

        public static let fieldRules: [String: FieldRule] = [
            "latitude": .described("WGS 84 degrees, -90 to 90"), "longitude": .described("WGS 84 degrees, -180 to 180"),
        ]
    }

    /// A proposed place (and time) to meet.
    public struct Meeting: Codable, Sendable, Equatable, FieldRules {
        /// One of the network's safe spots (its name and point then come from the spot).
        public var spotId: String?
        /// The place in words, for a point of the users' own choosing.
        public var name: String?
        public var point: Point?
        public var at: Date?

        public init(spotId: String? = nil, name: String? = nil, point: Point? = nil, at: Date? = nil) {
            self.spotId = spotId
            self.name = name
            self.point = point
            self.at = at
        }

        public static let fieldRules: [String: FieldRule] = [
            "spotId": FieldRule.text(1...64).described("a safe spot of the network (GET /v1/marketplace/spots)"),
            "name": FieldRule.plainText(1...200).described("the place in words, when no spot is named"),
        ]
    }

    /// The other side's answer to a proposed meeting. Proposing is the proposer's yes, so an accepted
    /// meeting is agreed by both.
    public enum MeetingAnswer: String, Codable, Sendable, CaseIterable, SchemaEnumeration {
        case accepted
        case declined
    }

    /// A picture sent in chat: the facts of its full file (its thumbnail is WebP, at most `ImageType.thumbnailSide` pixels a side).
    public struct MessageImage: Codable, Sendable, Equatable {
        public var mediaType: String
        public var width: Int
        public var height: Int
        public var size: Int

        public init(mediaType: String, width: Int, height: Int, size: Int) {
            self.mediaType = mediaType
            self.width = width
            self.height = height
            self.size = size
        }
    }

    public struct TimerChange: Codable, Sendable, Equatable {
        public var seconds: Int

        public init(seconds: Int) { self.seconds = seconds }
    }

    /// A message as one side sees it. Usernames only: the conversation names the other side.
    public struct Message: Codable, Sendable, Equatable, FieldRules {
        public var id: String
        /// Its number in the conversation (the history's order; pass as `after` for older ones).
        public var seq: Int64
        /// Whether the caller sent it.
        public var mine: Bool
        public var kind: MessageKind
        public var text: String?
        public var meeting: Meeting?
        public var location: Point?
        /// A picture's facts; absent once it is gone (deleted, or its sender's account erased).
        public var image: MessageImage?
        public var timer: TimerChange?
        /// The disappearing-messages timer in force when it was sent (0: it stays).
        public var timerSeconds: Int
        public var sentAt: Date
        /// When the recipient first read it (the read receipt).
        public var readAt: Date?
        /// When the caller's copy disappears.
        public var expiresAt: Date?
        /// It looks like it carries a phone number or an email address (listing conversations only):
        /// the app warns before anyone acts on it.
        public var warning: Bool
        /// Deleted by its sender for both: no content is left.
        public var deleted: Bool
        /// A proposed meeting's answer from the side that did not propose it (absent while open).
        public var meetingAnswer: MeetingAnswer?
        public var meetingAnsweredAt: Date?

        public init(id: String, seq: Int64, mine: Bool, kind: MessageKind, text: String? = nil, meeting: Meeting? = nil, location: Point? = nil,
                    image: MessageImage? = nil, timer: TimerChange? = nil, timerSeconds: Int, sentAt: Date, readAt: Date?, expiresAt: Date?, warning: Bool, deleted: Bool,
                    meetingAnswer: MeetingAnswer? = nil, meetingAnsweredAt: Date? = nil) {
            self.id = id
            self.seq = seq
            self.mine = mine
            self.kind = kind
            self.text = text
            self.meeting = meeting
            self.location = location
            self.image = image
            self.timer = timer
            self.timerSeconds = timerSeconds
            self.sentAt = sentAt
            self.readAt = readAt
            self.expiresAt = expiresAt
            self.warning = warning
            self.deleted = deleted
            self.meetingAnswer = meetingAnswer
            self.meetingAnsweredAt = meetingAnsweredAt
        }

        public static let fieldRules: [String: FieldRule] = ["id": .uuid]
    }
}
