-- The bulletin board: posts (pinned first, then the newest), their comments, and expiry: an expired
-- post is left out of every read at once and deleted with its photos within the hour.
CREATE TABLE posts (
    id uuid PRIMARY KEY,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    seq bigserial NOT NULL,
    author uuid NOT NULL REFERENCES members (id),
    title text NOT NULL,
    description text,
    pinned boolean NOT NULL DEFAULT false,
    expires_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    version integer NOT NULL DEFAULT 1
);
CREATE INDEX posts_board ON posts (household_id, pinned, seq);
CREATE INDEX posts_expiry ON posts (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE post_comments (
    id uuid PRIMARY KEY,
    post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    seq bigserial NOT NULL,
    member_id uuid NOT NULL REFERENCES members (id),
    at timestamptz NOT NULL,
    text text NOT NULL
);
CREATE INDEX post_comments_post ON post_comments (post_id, seq);
