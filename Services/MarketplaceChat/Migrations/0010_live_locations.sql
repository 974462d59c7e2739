-- A live location: one side's position shown to the other side of a conversation for up to an hour
-- from the share's start, sealed under the conversation's key (bound to conversation and side).
-- Never served past expires_at; the job live-locations.purge deletes it within a minute of it.
CREATE TABLE live_locations (
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    side smallint NOT NULL CHECK (side IN (0, 1)),
    body bytea NOT NULL,
    started_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (conversation_id, side),
    CHECK (expires_at > started_at AND expires_at <= started_at + interval '1 hour')
);
CREATE INDEX live_locations_expiry ON live_locations (expires_at);
