-- Sessions that ended, kept until the last access token of each has expired: every gateway refuses
-- those tokens. Gateways hear of each end as a live event and read this table (auth.sessions.revoked.v1)
-- when they start or reconnect. No foreign key: a deleted account's sessions are gone, their ends stay.
CREATE TABLE revoked_sessions (
    session_id uuid PRIMARY KEY,
    until timestamptz NOT NULL
);
CREATE INDEX revoked_sessions_until ON revoked_sessions (until);
