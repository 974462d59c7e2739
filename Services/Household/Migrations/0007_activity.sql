-- The household's activity feed: each event the members were told of, as the app lists it (a year kept).
CREATE TABLE activity (
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    seq bigserial NOT NULL,
    event_type text NOT NULL,
    category text NOT NULL,
    resource text NOT NULL,
    resource_id uuid NOT NULL,
    -- Who acted; NULL for what the household's jobs did.
    member_id uuid REFERENCES members (id),
    title text NOT NULL,
    body text NOT NULL,
    at timestamptz NOT NULL,
    PRIMARY KEY (household_id, seq)
);
CREATE INDEX activity_age ON activity (at);
