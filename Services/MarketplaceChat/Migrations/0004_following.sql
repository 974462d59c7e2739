-- Followers of sellers, and searches kept by their owners: a listing's first publication is pushed
-- to both (once to each, whichever way it reached them).
CREATE TABLE follows (
    follower uuid NOT NULL,
    followee uuid NOT NULL REFERENCES traders (account_id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (follower, followee),
    CHECK (follower <> followee)
);
CREATE INDEX follows_followee ON follows (followee);

CREATE TABLE saved_searches (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL,
    university_id text NOT NULL REFERENCES networks (university_id),
    q text,
    category_id text,
    campus_id text,
    condition text,
    min_price bigint,
    max_price bigint,
    free boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL
);
CREATE INDEX saved_searches_account ON saved_searches (account_id, created_at DESC);
CREATE INDEX saved_searches_network ON saved_searches (university_id);
