import Contracts
import Envelope

/// The auth service's routes: sign-up, email verification, sessions and the token keys.
enum AuthRoutes {
    static let email: JSONValue = ["type": "string", "format": "email", "minLength": 3, "maxLength": 254]
    static let tokens: JSONValue = [
        "type": "object", "required": ["accessToken", "refreshToken", "expiresIn", "tokenType"],
        "properties": [
            "accessToken": ["type": "string", "description": "ES256 JWT for the Authorization header (Bearer)"],
            "refreshToken": ["type": "string", "description": "opaque; exchanged once at /v1/auth/refresh"],
            "expiresIn": ["type": "integer", "description": "seconds the access token is valid"],
            "tokenType": ["type": "string", "enum": ["Bearer"]],
        ],
    ]
    static let sessionsEnded: JSONValue = ["type": "object", "required": ["sessionsEnded"], "properties": ["sessionsEnded": ["type": "integer"]]]
    static let displayName: JSONValue = [
        "type": "string", "minLength": 1, "maxLength": 80, "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F]*$",
        "description": "no control characters; surrounding spaces are trimmed",
    ]
    static let sent: JSONValue = ["type": "object", "required": ["status"], "properties": ["status": ["type": "string", "enum": ["verification_sent"]]]]

    static let university: JSONValue = [
        "type": "object", "required": ["id", "name", "campus"],
        "properties": ["id": ["type": "string"], "name": ["type": "string"], "campus": ["type": "string"]],
    ]
    static let pictureInfo: JSONValue = [
        "type": "object", "required": ["mediaType", "width", "height", "size", "updatedAt"],
        "properties": [
            "mediaType": ["type": "string", "enum": ["image/png", "image/jpeg", "image/webp"]],
            "width": ["type": "integer"], "height": ["type": "integer"], "size": ["type": "integer", "description": "bytes"],
            "updatedAt": ["type": "string", "format": "date-time"],
        ],
    ]
    static let profile: JSONValue = [
        "type": "object", "required": ["id", "email", "username", "displayName", "createdAt"],
        "properties": [
            "id": ["type": "string"], "email": ["type": "string"], "username": ["type": "string"], "displayName": ["type": "string"],
            "university": university, "picture": pictureInfo, "createdAt": ["type": "string", "format": "date-time"],
        ],
    ]

    static let agreement: JSONValue = [
        "type": "object", "required": ["policy", "version", "title", "url", "required", "status"],
        "properties": [
            "policy": ["type": "string"], "version": ["type": "integer", "description": "the current version"],
            "title": ["type": "string"], "url": ["type": "string", "format": "uri"], "required": ["type": "boolean"],
            "status": ["type": "string", "enum": ["signed", "outdated", "unsigned", "withdrawn"]],
            "signedVersion": ["type": "integer"], "signedAt": ["type": "string", "format": "date-time"],
            "withdrawnAt": ["type": "string", "format": "date-time"],
        ],
    ]
    static let policy = BusRoute.Parameter("policy", in: .path, description: "the policy id (terms, privacy, ...)", length: 1...64)

    static let all: [BusRoute] = [
        BusRoute(
            .post, "/v1/auth/register", to: Auth.Account.Register.self,
            summary: "Creates an account and mails a 6-digit code to confirm the email; the same answer whether or not the email has an account",
            requestBody: [
                "type": "object", "required": ["email", "password", "displayName", "username"],
                "properties": [
                    "email": email,
                    "password": ["type": "string", "minLength": 8, "maxLength": 256, "description": "not one of the most common passwords"],
                    "displayName": displayName,
                    "username": ["type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_.]{2,29}$", "description": "unique; stored in lowercase"],
                ],
            ],
            response: [
                "type": "object", "required": ["status", "email"],
                "properties": [
                    "status": ["type": "string", "enum": ["verification_sent"]],
                    "email": ["type": "string"],
                    "university": university,
                ],
            ],
            successStatus: .accepted, errors: [.conflict, .rateLimited]),
        BusRoute(
            .post, "/v1/auth/verify-email", to: Auth.Email.Verify.self,
            summary: "Confirms the email with the mailed code (valid 10 minutes, 5 attempts)",
            requestBody: [
                "type": "object", "required": ["email", "code"],
                "properties": ["email": email, "code": ["type": "string", "pattern": "^[0-9]{6}$"]],
            ],
            response: ["type": "object", "required": ["verified"], "properties": ["verified": ["type": "boolean"]]], errors: [.rateLimited]),
        BusRoute(
            .post, "/v1/auth/verify-email/resend", to: Auth.Email.Resend.self,
            summary: "Mails a new code, at most one a minute; the same answer whether or not the email has an account waiting",
            requestBody: ["type": "object", "required": ["email"], "properties": ["email": email]],
            response: sent, successStatus: .accepted, errors: [.rateLimited]),
        BusRoute(
            .post, "/v1/auth/login", to: Auth.Session.Login.self,
            summary: "Starts a session: an access token (15 minutes) and a refresh token",
            requestBody: [
                "type": "object", "required": ["email", "password"],
                "properties": ["email": ["type": "string", "maxLength": 254], "password": ["type": "string", "maxLength": 256]],
            ],
            response: tokens, errors: [.unauthenticated, .forbidden, .rateLimited]),
        BusRoute(
            .post, "/v1/auth/refresh", to: Auth.Session.Refresh.self,
            summary: "Exchanges a refresh token for a new pair; reusing an old one ends the session",
            requestBody: ["type": "object", "required": ["refreshToken"], "properties": ["refreshToken": ["type": "string", "maxLength": 200]]],
            response: tokens, errors: [.unauthenticated, .rateLimited]),
        BusRoute(
            .post, "/v1/auth/logout", to: Auth.Session.Logout.self,
            summary: "Ends this session, or with all=true every session of the account", access: .signedIn,
            requestBody: ["type": "object", "properties": ["all": ["type": "boolean"]]],
            response: ["type": "object", "required": ["ended"], "properties": ["ended": ["type": "integer"]]]),
        BusRoute(
            .post, "/v1/auth/password/forgot", to: Auth.Password.Forgot.self,
            summary: "Mails a 6-digit reset code to a verified account, at most one a minute; the same answer for any email",
            requestBody: ["type": "object", "required": ["email"], "properties": ["email": email]],
            response: ["type": "object", "required": ["status"], "properties": ["status": ["type": "string", "enum": ["reset_code_sent"]]]],
            successStatus: .accepted, errors: [.rateLimited]),
        BusRoute(
            .post, "/v1/auth/password/reset", to: Auth.Password.Reset.self,
            summary: "Sets a new password with the mailed code and ends every session of the account",
            requestBody: [
                "type": "object", "required": ["email", "code", "newPassword"],
                "properties": [
                    "email": email, "code": ["type": "string", "pattern": "^[0-9]{6}$"],
                    "newPassword": ["type": "string", "minLength": 8, "maxLength": 256],
                ],
            ],
            response: sessionsEnded, errors: [.rateLimited]),
        BusRoute(
            .post, "/v1/me/password", to: Auth.Password.Change.self,
            summary: "Sets a new password, confirmed with the current one; every other session ends", access: .signedIn,
            requestBody: [
                "type": "object", "required": ["currentPassword", "newPassword"],
                "properties": [
                    "currentPassword": ["type": "string", "maxLength": 256],
                    "newPassword": ["type": "string", "minLength": 8, "maxLength": 256, "description": "not one of the most common passwords"],
                ],
            ],
            response: sessionsEnded, errors: [.rateLimited]),
        BusRoute(
            .get, "/v1/me/security-events", to: Auth.Events.List.self,
            summary: "The caller's logins, failed logins and password changes, newest first", access: .signedIn,
            parameters: [
                .init("limit", in: .query, .integer, description: "events per page, 20 when left out", range: 1...100),
                .init("before", in: .query, .integer, description: "the previous page's nextBefore", range: 1...Int64.max),
            ],
            response: [
                "type": "object", "required": ["events"],
                "properties": [
                    "events": [
                        "type": "array",
                        "items": [
                            "type": "object", "required": ["id", "kind", "at"],
                            "properties": [
                                "id": ["type": "integer"],
                                "kind": ["type": "string", "enum": ["login", "login_failed", "password_changed", "password_reset", "refresh_token_reused"]],
                                "at": ["type": "string", "format": "date-time"],
                                "ip": ["type": "string"],
                            ],
                        ],
                    ],
                    "nextBefore": ["type": "integer", "description": "pass as before for the next page; absent on the last page"],
                ],
            ]),
        BusRoute(
            .get, "/v1/me/agreements", to: Auth.Agreements.List.self,
            summary: "Every current policy (terms, privacy notice, ...) and whether the caller agreed to it", access: .signedIn,
            response: ["type": "object", "required": ["agreements"], "properties": ["agreements": ["type": "array", "items": agreement]]]),
        BusRoute(
            .put, "/v1/me/agreements/{policy}", to: Auth.Agreements.Sign.self,
            summary: "Signs the policy's current version (the one shown to the user)", access: .signedIn, parameters: [policy],
            requestBody: ["type": "object", "required": ["version"], "properties": ["version": ["type": "integer", "minimum": 1]]],
            response: agreement, errors: [.notFound, .conflict]),
        BusRoute(
            .delete, "/v1/me/agreements/{policy}", to: Auth.Agreements.Withdraw.self,
            summary: "Withdraws the caller's agreement to the policy", access: .signedIn, parameters: [policy],
            response: agreement, errors: [.notFound]),
        BusRoute(
            .put, "/v1/me/picture", to: Auth.Picture.Set.self,
            summary: "Sets the caller's profile picture: PNG, JPEG or WebP, at most 512 KiB (AUTH_PICTURE_MAX_BYTES), 16 to 4096 pixels a side",
            access: .signedIn,
            requestBody: [
                "type": "object", "required": ["mediaType", "content"],
                "properties": [
                    "mediaType": ["type": "string", "enum": ["image/png", "image/jpeg", "image/webp"]],
                    "content": ["type": "string", "contentEncoding": "base64", "description": "the image file; its bytes must be what mediaType says"],
                ],
            ],
            response: pictureInfo, errors: [.tooLarge]),
        BusRoute(
            .get, "/v1/users/{account}/picture", to: Auth.Picture.Get.self, summary: "An account's profile picture", access: .signedIn,
            parameters: [.init("account", in: .path, description: "the account id", length: 36...36)],
            response: [
                "type": "object", "required": ["info", "content"],
                "properties": ["info": pictureInfo, "content": ["type": "string", "contentEncoding": "base64"]],
            ],
            errors: [.notFound]),
        BusRoute(
            .delete, "/v1/me/picture", to: Auth.Picture.Delete.self, summary: "Removes the caller's profile picture", access: .signedIn,
            response: ["type": "object", "required": ["deleted"], "properties": ["deleted": ["type": "boolean"]]]),
        BusRoute(.get, "/v1/me", to: Auth.Me.Get.self, summary: "The caller's profile", access: .signedIn, response: profile),
        BusRoute(
            .patch, "/v1/me", to: Auth.Me.Update.self, summary: "Changes the caller's display name and/or username", access: .signedIn,
            requestBody: [
                "type": "object",
                "properties": [
                    "displayName": displayName,
                    "username": ["type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_.]{2,29}$"],
                ],
            ],
            response: profile, errors: [.conflict]),
        BusRoute(
            .delete, "/v1/me", to: Auth.Me.Delete.self,
            summary: "Deletes the caller's account (the password confirms it) and ends every session", access: .signedIn,
            requestBody: ["type": "object", "required": ["password"], "properties": ["password": ["type": "string", "maxLength": 256]]],
            response: ["type": "object", "required": ["deleted"], "properties": ["deleted": ["type": "boolean"]]], errors: [.rateLimited]),
        BusRoute(
            .get, "/.well-known/jwks.json", to: Auth.Keys.Jwks.self,
            summary: "The public keys access tokens are signed with (RFC 7517)",
            response: [
                "type": "object", "required": ["keys"],
                "properties": [
                    "keys": [
                        "type": "array",
                        "items": [
                            "type": "object", "required": ["kty", "crv", "alg", "use", "kid", "x", "y"],
                            "properties": [
                                "kty": ["type": "string"], "crv": ["type": "string"], "alg": ["type": "string"], "use": ["type": "string"],
                                "kid": ["type": "string"], "x": ["type": "string"], "y": ["type": "string"],
                            ],
                        ],
                    ],
                ],
            ]),
    ]
}
