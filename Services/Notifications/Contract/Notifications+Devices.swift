import Contracts
import Envelope
import Foundation

extension Notifications {
    public enum Devices {
        /// The push services a device is reached through; APNs today (FCM or Web Push join here).
        public enum Platform: String, Codable, Sendable, SchemaEnumeration {
            case ios
        }

        /// Which APNs host a token belongs to: a development build's token is only valid at the sandbox.
        public enum Environment: String, Codable, Sendable, SchemaEnumeration {
            case sandbox, production
        }

        /// One of the caller's devices.
        public struct Device: Codable, Sendable, Equatable, FieldRules {
            public var id: String
            public var platform: Platform
            public var app: App
            /// The last 8 hex digits of the push token, to recognise this device in the list.
            public var tokenEnding: String
            public var environment: Environment
            public var locale: String?
            public var timeZone: String?
            public var appVersion: String?
            public var registeredAt: Date
            /// When a push last reached it (APNs accepted one).
            public var lastPushedAt: Date?

            public init(id: String, platform: Platform, app: App, tokenEnding: String, environment: Environment, locale: String?, timeZone: String?,
                        appVersion: String?, registeredAt: Date, lastPushedAt: Date?) {
                self.id = id
                self.platform = platform
                self.app = app
                self.tokenEnding = tokenEnding
                self.environment = environment
                self.locale = locale
                self.timeZone = timeZone
                self.appVersion = appVersion
                self.registeredAt = registeredAt
                self.lastPushedAt = lastPushedAt
            }

            public static let fieldRules: [String: FieldRule] = ["id": FieldRule.uuid.described("the device id")]
        }

        /// `notifications.devices.register.v1`: the caller's device, for the session it signed in
        /// with (logging out removes it). The same token registered again updates the device; a token
        /// another account registered moves to the caller (phones change hands).
        public enum Register: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.devices.register.v1"
            public static let http = [HTTPBinding(
                .post, "/v1/devices", name: "devicesRegister", access: .owner, status: .created,
                summary: "Registers the caller's device for pushes (again on every launch: tokens change)")]
            public static let idempotency: Idempotency? = .repeatable(because: "registering the same token again updates the same device")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var platform: Platform
                /// The app whose pushes the device gets: the one the caller's session is signed in to
                /// (the access token's app), which is taken when this is absent; another is refused.
                public var app: App?
                /// The APNs device token as hex (any even length from 16 to 400 digits; Apple's are 64 today).
                public var token: String
                public var environment: Environment
                /// BCP 47, such as `en-IE`.
                public var locale: String?
                /// IANA, such as `Europe/Dublin`: schedules and quiet hours follow it.
                public var timeZone: String?
                public var appVersion: String?

                public init(platform: Platform, app: App?, token: String, environment: Environment, locale: String? = nil, timeZone: String? = nil,
                            appVersion: String? = nil) {
                    self.platform = platform
                    self.app = app
                    self.token = token
                    self.environment = environment
                    self.locale = locale
                    self.timeZone = timeZone
                    self.appVersion = appVersion
                }

                public static let tokenPattern = "^([0-9A-Fa-f]{2}){8,200}$"
                public static let fieldRules: [String: FieldRule] = [
                    "app": FieldRule.described("the app the session signed in to (the access token's); taken from the token when absent, another is refused"),
                    "token": FieldRule.pattern(tokenPattern, meaning: "an even number (16 to 400) of hex digits").secret,
                    "locale": .pattern("^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8}){0,3}$", meaning: "a language tag such as en-IE"),
                    "timeZone": Notifications.timeZoneRule,
                    "appVersion": .text(1...32),
                ]
            }

            public typealias Response = Device
        }

        /// `notifications.devices.list.v1`: the caller's devices, newest first.
        public enum List: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.devices.list.v1"
            public static let http = [HTTPBinding(.get, "/v1/devices", name: "devicesList", access: .owner, summary: "The caller's devices, newest first")]

            public typealias Request = Empty

            public struct Response: Codable, Sendable, Equatable {
                /// At most `DEVICES_PER_ACCOUNT` (20): registering one more removes the oldest.
                public var devices: [Device]

                public init(devices: [Device]) { self.devices = devices }
            }
        }

        /// `notifications.devices.delete.v1`: one of the caller's devices stops receiving pushes;
        /// `not_found` for anyone else's.
        public enum Delete: OperationDeclaration {
            public static let service = Notifications.name
            public static let type = "notifications.devices.delete.v1"
            public static let http = [HTTPBinding(.delete, "/v1/devices/{id}", name: "devicesDelete", access: .owner, summary: "Removes one of the caller's devices")]
            public static let idempotency: Idempotency? = .repeatable(because: "a repeat finds the device gone and answers not_found")

            public struct Request: Codable, Sendable, Equatable, FieldRules {
                public var id: String

                public init(id: String) { self.id = id }

                public static let fieldRules: [String: FieldRule] = ["id": FieldRule.uuid.described("the device id")]
            }

            public struct Response: Codable, Sendable, Equatable {
                public var deleted: Bool

                public init(deleted: Bool) { self.deleted = deleted }
            }
        }
    }

    /// An IANA time zone name.
    public static let timeZoneRule = FieldRule.pattern("^[A-Za-z][A-Za-z0-9_+/-]{0,63}$", meaning: "an IANA time zone such as Europe/Dublin")
}
