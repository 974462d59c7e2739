-- The APNs provider token every instance presents: one per team and key, renewed by one instance
-- (under the row's lock) once it is old enough, since Apple limits token updates per team and key.
CREATE TABLE provider_tokens (
    team_id text NOT NULL,
    key_id text NOT NULL,
    token text,
    issued_at timestamptz,
    PRIMARY KEY (team_id, key_id)
);

-- A silent push (content-available without an alert) makes no inbox item: its deliveries name the
-- recipient's device only.
ALTER TABLE deliveries ALTER COLUMN notification_id DROP NOT NULL;

-- Accounts erased here: pushes and schedules that reach them later (an outbox may deliver late) are
-- dropped. Kept as long as an unread inbox item would be.
CREATE TABLE erased_accounts (
    account_id uuid PRIMARY KEY,
    erased_at timestamptz NOT NULL
);
