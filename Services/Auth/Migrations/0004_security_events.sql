-- What an account holder can review about their own account: logins, failed logins, password
-- changes and resets, sessions ended because a refresh token came back. Kept 180 days (AuthHousekeeping).
CREATE TABLE security_events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind text NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    -- The client IP the gateway saw, when the request came through it.
    ip text,
    session_id uuid
);
CREATE INDEX security_events_account ON security_events (account_id, id DESC);
CREATE INDEX security_events_at ON security_events (at);
