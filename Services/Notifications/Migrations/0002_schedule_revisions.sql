-- The newest revision each (source, key) was set or cancelled with, for senders that number their
-- changes: an outbox may deliver them out of order, and an older one must not undo a newer one.
CREATE TABLE schedule_revisions (
    source text NOT NULL,
    key text NOT NULL,
    -- The recipient, when known (to erase with the account).
    account_id uuid,
    revision bigint NOT NULL,
    PRIMARY KEY (source, key)
);
CREATE INDEX schedule_revisions_account ON schedule_revisions (account_id);
