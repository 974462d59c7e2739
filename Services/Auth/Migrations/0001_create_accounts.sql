-- Universities: a closed network per university, joined through the email domain. Rows are data:
-- adding a university is a migration that inserts one, not a code change.
CREATE TABLE universities (
    id text PRIMARY KEY,
    name text NOT NULL,
    campus text NOT NULL,
    -- Email domains of the university; subdomains count (mail.tcd.ie belongs to tcd.ie).
    domains text[] NOT NULL
);

CREATE TABLE accounts (
    id uuid PRIMARY KEY,
    email text NOT NULL UNIQUE,
    username text NOT NULL UNIQUE,
    display_name text NOT NULL,
    -- Argon2id in PHC string format.
    password_hash text NOT NULL,
    university_id text REFERENCES universities (id),
    roles text[] NOT NULL DEFAULT '{user}',
    created_at timestamptz NOT NULL DEFAULT now(),
    verified_at timestamptz
);

-- One-time codes mailed for email verification (and, later, password reset), stored hashed.
CREATE TABLE email_codes (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    purpose text NOT NULL CHECK (purpose IN ('verify-email', 'reset-password')),
    code_hash bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    used_at timestamptz
);
CREATE INDEX email_codes_account ON email_codes (account_id, purpose, created_at DESC);

-- A session is one refresh-token family; `sid` in access tokens.
CREATE TABLE sessions (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    revoked_reason text
);
CREATE INDEX sessions_account ON sessions (account_id) WHERE revoked_at IS NULL;

-- Refresh tokens, stored as SHA-256 of the token; each use rotates it (`used_at`) for a child.
CREATE TABLE refresh_tokens (
    token_hash bytea PRIMARY KEY,
    session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    parent_hash bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at timestamptz
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

-- Access-token signing keys: the private key sealed (AES-GCM) with AUTH_KEY_ENCRYPTION_KEY.
CREATE TABLE signing_keys (
    kid text PRIMARY KEY,
    sealed_private_key bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- After this the key signs no more; it stays published until its last token expired.
    retired_at timestamptz
);
