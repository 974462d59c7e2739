import Envelope
import Foundation

/// The `auth` service: accounts, email verification, sessions and the access-token keys.
public enum Auth {
    public static let service = "auth"

    /// A university whose closed network an account joins through its email domain.
    public struct University: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var campus: String

        public init(id: String, name: String, campus: String) {
            self.id = id
            self.name = name
            self.campus = campus
        }
    }

    /// A new pair of tokens.
    public struct Tokens: Codable, Sendable, Equatable {
        /// An ES256 JWT, sent as `Authorization: Bearer <accessToken>`.
        public var accessToken: String
        /// Opaque; exchanged once at `auth.session.refresh.v1` for a new pair.
        public var refreshToken: String
        /// Seconds the access token is valid.
        public var expiresIn: Int
        public var tokenType: String

        public init(accessToken: String, refreshToken: String, expiresIn: Int) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.expiresIn = expiresIn
            tokenType = "Bearer"
        }
    }

    public enum Account {
        /// `auth.account.register.v1`: creates an account waiting for email verification and mails a
        /// 6-digit code. The answer is the same whether or not the email already has an account.
        public enum Register: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.account.register.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var email: String
                /// 8 to 256 characters, not one of the commonly breached passwords.
                public var password: String
                /// 1 to 80 characters.
                public var displayName: String
                /// 3 to 30 of a-z, 0-9, `_` and `.`, starting with a letter; unique; shown in the marketplace.
                public var username: String

                public init(email: String, password: String, displayName: String, username: String) {
                    self.email = email
                    self.password = password
                    self.displayName = displayName
                    self.username = username
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// `verification_sent`.
                public var status: String
                /// The address the code went to, as stored (lowercase).
                public var email: String
                /// The university network the email domain belongs to, if any.
                public var university: University?

                public init(status: String, email: String, university: University?) {
                    self.status = status
                    self.email = email
                    self.university = university
                }
            }
        }
    }

    public enum Email {
        /// `auth.email.verify.v1`: confirms the address with the mailed code (valid 10 minutes,
        /// 5 attempts).
        public enum Verify: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.email.verify.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var email: String
                public var code: String

                public init(email: String, code: String) {
                    self.email = email
                    self.code = code
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                public var verified: Bool

                public init(verified: Bool) { self.verified = verified }
            }
        }

        /// `auth.email.resend.v1`: mails a new code (at most one a minute); the answer does not tell
        /// whether the address has an account.
        public enum Resend: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.email.resend.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var email: String

                public init(email: String) { self.email = email }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// `verification_sent`.
                public var status: String

                public init(status: String) { self.status = status }
            }
        }
    }

    public enum Session {
        /// `auth.session.login.v1`: a new session for a verified account. A wrong password and an
        /// unknown email get the same answer.
        public enum Login: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.session.login.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var email: String
                public var password: String

                public init(email: String, password: String) {
                    self.email = email
                    self.password = password
                }
            }

            public typealias Response = Tokens
        }

        /// `auth.session.refresh.v1`: exchanges a refresh token for a new pair. A token used twice
        /// ends its whole session, except a repeat within a few seconds (concurrent refreshes).
        public enum Refresh: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.session.refresh.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var refreshToken: String

                public init(refreshToken: String) { self.refreshToken = refreshToken }
            }

            public typealias Response = Tokens
        }

        /// `auth.session.logout.v1`: ends the caller's session, or all of the caller's sessions.
        public enum Logout: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.session.logout.v1"

            public struct Request: Codable, Sendable, Equatable {
                /// End every session of the account, not only this one.
                public var all: Bool?

                public init(all: Bool? = nil) { self.all = all }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// How many sessions ended.
                public var ended: Int

                public init(ended: Int) { self.ended = ended }
            }
        }
    }

    public enum Password {
        /// `auth.password.forgot.v1`: mails a 6-digit reset code (10 minutes, 5 attempts, one a
        /// minute) to a verified account; the answer does not tell whether the address has one.
        public enum Forgot: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.password.forgot.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var email: String

                public init(email: String) { self.email = email }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// `reset_code_sent`.
                public var status: String

                public init(status: String) { self.status = status }
            }
        }

        /// `auth.password.reset.v1`: sets a new password with the mailed code and ends every session.
        public enum Reset: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.password.reset.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var email: String
                public var code: String
                public var newPassword: String

                public init(email: String, code: String, newPassword: String) {
                    self.email = email
                    self.code = code
                    self.newPassword = newPassword
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                /// Sessions ended by the reset.
                public var sessionsEnded: Int

                public init(sessionsEnded: Int) { self.sessionsEnded = sessionsEnded }
            }
        }

        /// `auth.password.change.v1`: the signed-in caller sets a new password, confirming the
        /// current one; every other session ends.
        public enum Change: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.password.change.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var currentPassword: String
                public var newPassword: String

                public init(currentPassword: String, newPassword: String) {
                    self.currentPassword = currentPassword
                    self.newPassword = newPassword
                }
            }

            public typealias Response = Reset.Response
        }
    }

    /// A profile picture's facts (its bytes come from `auth.picture.get.v1`).
    public struct PictureInfo: Codable, Sendable, Equatable {
        public var mediaType: String
        public var width: Int
        public var height: Int
        /// The file's size in bytes.
        public var size: Int
        public var updatedAt: Date

        public init(mediaType: String, width: Int, height: Int, size: Int, updatedAt: Date) {
            self.mediaType = mediaType
            self.width = width
            self.height = height
            self.size = size
            self.updatedAt = updatedAt
        }
    }

    public enum Picture {
        /// `auth.picture.set.v1`: sets the caller's profile picture: a PNG, JPEG or WebP file whose
        /// content is what `mediaType` says, within the size and pixel limits.
        public enum Set: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.picture.set.v1"

            public struct Request: Codable, Sendable, Equatable {
                /// `image/png`, `image/jpeg` or `image/webp`.
                public var mediaType: String
                /// The file, base64 in JSON.
                public var content: Data

                public init(mediaType: String, content: Data) {
                    self.mediaType = mediaType
                    self.content = content
                }
            }

            public typealias Response = PictureInfo
        }

        /// `auth.picture.get.v1`: an account's profile picture, for any signed-in member.
        public enum Get: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.picture.get.v1"

            public struct Request: Codable, Sendable, Equatable {
                /// The account id (`sub` of its tokens; `id` of its profile).
                public var account: String

                public init(account: String) { self.account = account }
            }

            public struct Response: Codable, Sendable, Equatable {
                public var info: PictureInfo
                /// The file, base64 in JSON.
                public var content: Data

                public init(info: PictureInfo, content: Data) {
                    self.info = info
                    self.content = content
                }
            }
        }

        /// `auth.picture.delete.v1`: removes the caller's profile picture.
        public enum Delete: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.picture.delete.v1"
            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                /// Whether there was a picture.
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }
    }

    /// A policy in its current version and where the caller stands with it.
    public struct Agreement: Codable, Sendable, Equatable {
        public enum Status: String, Codable, Sendable {
            /// The current version is signed.
            case signed
            /// An older version is signed; the current one needs signing.
            case outdated
            case unsigned
            case withdrawn
        }

        /// `terms`, `privacy`, `marketplace-rules`, `marketing-email`, ...
        public var policy: String
        /// The current version.
        public var version: Int
        public var title: String
        /// Where the text of this version is.
        public var url: String
        /// Whether the apps need it signed before the account is used.
        public var required: Bool
        public var status: Status
        /// The version the caller signed last, if any.
        public var signedVersion: Int?
        public var signedAt: Date?
        public var withdrawnAt: Date?

        public init(policy: String, version: Int, title: String, url: String, required: Bool, status: Status,
                    signedVersion: Int?, signedAt: Date?, withdrawnAt: Date?) {
            self.policy = policy
            self.version = version
            self.title = title
            self.url = url
            self.required = required
            self.status = status
            self.signedVersion = signedVersion
            self.signedAt = signedAt
            self.withdrawnAt = withdrawnAt
        }
    }

    public enum Agreements {
        /// `auth.agreements.list.v1`: every current policy with the caller's standing.
        public enum List: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.agreements.list.v1"
            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                public var agreements: [Agreement]

                public init(agreements: [Agreement]) { self.agreements = agreements }
            }
        }

        /// `auth.agreements.sign.v1`: the caller signs a policy's current version (naming it proves
        /// which text was shown).
        public enum Sign: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.agreements.sign.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var policy: String
                public var version: Int

                public init(policy: String, version: Int) {
                    self.policy = policy
                    self.version = version
                }
            }

            public typealias Response = Agreement
        }

        /// `auth.agreements.withdraw.v1`: the caller withdraws agreement to a policy.
        public enum Withdraw: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.agreements.withdraw.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var policy: String

                public init(policy: String) { self.policy = policy }
            }

            public typealias Response = Agreement
        }
    }

    /// One entry of the account holder's security record.
    public struct SecurityEvent: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable {
            case login = "login"
            case loginFailed = "login_failed"
            case passwordChanged = "password_changed"
            case passwordReset = "password_reset"
            /// A refresh token was used again after its grace: its session was ended.
            case refreshTokenReused = "refresh_token_reused"
        }

        /// Increasing; pass the last one seen as `before` for the next page.
        public var id: Int64
        public var kind: Kind
        public var at: Date
        /// The client IP the gateway saw.
        public var ip: String?

        public init(id: Int64, kind: Kind, at: Date, ip: String?) {
            self.id = id
            self.kind = kind
            self.at = at
            self.ip = ip
        }
    }

    public enum Events {
        /// `auth.events.list.v1`: the caller's security events, newest first, a page at a time.
        public enum List: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.events.list.v1"

            public struct Request: Codable, Sendable, Equatable {
                /// 1 to 100; 20 when left out.
                public var limit: Int?
                /// Only events older than this id (the previous page's `nextBefore`).
                public var before: Int64?

                public init(limit: Int? = nil, before: Int64? = nil) {
                    self.limit = limit
                    self.before = before
                }
            }

            public struct Response: Codable, Sendable, Equatable {
                public var events: [SecurityEvent]
                /// Pass as `before` for the next page; absent on the last page.
                public var nextBefore: Int64?

                public init(events: [SecurityEvent], nextBefore: Int64?) {
                    self.events = events
                    self.nextBefore = nextBefore
                }
            }
        }
    }

    /// The signed-in caller's own account.
    public struct Profile: Codable, Sendable, Equatable {
        public var id: String
        public var email: String
        public var username: String
        public var displayName: String
        public var university: University?
        public var picture: PictureInfo?
        public var createdAt: Date

        public init(id: String, email: String, username: String, displayName: String, university: University?, picture: PictureInfo?,
                    createdAt: Date) {
            self.id = id
            self.email = email
            self.username = username
            self.displayName = displayName
            self.university = university
            self.picture = picture
            self.createdAt = createdAt
        }
    }

    public enum Me {
        /// `auth.me.get.v1`: the caller's profile.
        public enum Get: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.me.get.v1"
            public typealias Request = Empty
            public typealias Response = Profile
        }

        /// `auth.me.update.v1`: changes the display name and/or the username.
        public enum Update: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.me.update.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var displayName: String?
                public var username: String?

                public init(displayName: String? = nil, username: String? = nil) {
                    self.displayName = displayName
                    self.username = username
                }
            }

            public typealias Response = Profile
        }

        /// `auth.me.delete.v1`: deletes the caller's account (the password confirms it) and ends
        /// every session.
        public enum Delete: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.me.delete.v1"

            public struct Request: Codable, Sendable, Equatable {
                public var password: String

                public init(password: String) { self.password = password }
            }

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }
    }

    public enum Keys {
        /// `auth.keys.jwks.v1`: the public keys access tokens are signed with (RFC 7517 JWK Set).
        public enum Jwks: BusOperation {
            public static let service = Auth.service
            public static let type = "auth.keys.jwks.v1"

            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                public var keys: [Key]

                public init(keys: [Key]) { self.keys = keys }
            }

            /// One P-256 public key.
            public struct Key: Codable, Sendable, Equatable {
                public var kty: String
                public var crv: String
                public var alg: String
                public var use: String
                public var kid: String
                public var x: String
                public var y: String

                public init(kid: String, x: String, y: String) {
                    kty = "EC"
                    crv = "P-256"
                    alg = "ES256"
                    use = "sig"
                    self.kid = kid
                    self.x = x
                    self.y = y
                }
            }
        }
    }
}
