-- pg_trgm (misspelled searches, usernames) lives in the shared schema `extensions`, since an extension exists
-- once per database and each service's search_path is its own schema: queries name it
-- (extensions.gin_trgm_ops, OPERATOR(extensions.%)). deploy/service-role.sh installs it for a
-- service's own role (which may not); a role that may (the local default's) installs it here.
-- The lock is the script's: one installation at a time, whoever comes first.
DO $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('melon.extensions'));
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'pg_trgm') THEN
        CREATE SCHEMA IF NOT EXISTS extensions;
        CREATE EXTENSION pg_trgm SCHEMA extensions;
    ELSIF (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm') <> 'extensions' THEN
        RAISE EXCEPTION 'pg_trgm is installed in schema %; the marketplace needs it in schema extensions',
            (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm');
    END IF;
END
$$;

-- Who trades on the marketplace, as others see them: the username is the access token's, refreshed
-- whenever they act.
CREATE TABLE traders (
    account_id uuid PRIMARY KEY,
    university_id text NOT NULL REFERENCES networks (university_id),
    username text NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX traders_username ON traders (university_id, lower(username) text_pattern_ops);
CREATE INDEX traders_username_trgm ON traders USING gin (username extensions.gin_trgm_ops);

-- The feed's order: a listing takes the next number each time it is published.
CREATE SEQUENCE listing_feed_seq;

CREATE TABLE listings (
    id uuid PRIMARY KEY,
    -- Creation order: the seller's own list pages by it.
    number bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    seller uuid NOT NULL REFERENCES traders (account_id),
    university_id text NOT NULL REFERENCES networks (university_id),
    campus_id text NOT NULL,
    category_id text NOT NULL REFERENCES categories (id),
    title text NOT NULL,
    description text NOT NULL DEFAULT '',
    price_minor bigint NOT NULL CHECK (price_minor >= 0),
    currency text NOT NULL,
    condition text NOT NULL CHECK (condition IN ('new', 'like_new', 'good', 'fair', 'poor')),
    state text NOT NULL CHECK (state IN ('draft', 'active', 'reserved', 'sold', 'expired', 'hidden', 'removed')),
    version integer NOT NULL DEFAULT 1,
    feed_seq bigint,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    published_at timestamptz,
    expires_at timestamptz,
    sold_at timestamptz,
    search_doc tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, title), 'A') || setweight(to_tsvector('english'::regconfig, description), 'B')) STORED,
    FOREIGN KEY (university_id, campus_id) REFERENCES campuses (university_id, id),
    CHECK (state <> 'active' OR (feed_seq IS NOT NULL AND expires_at IS NOT NULL))
);
CREATE INDEX listings_feed ON listings (university_id, feed_seq DESC) WHERE state = 'active';
CREATE INDEX listings_price ON listings (university_id, price_minor, feed_seq) WHERE state = 'active';
CREATE INDEX listings_words ON listings USING gin (search_doc) WHERE state = 'active';
CREATE INDEX listings_seller ON listings (seller, number DESC);
CREATE INDEX listings_expiring ON listings (expires_at) WHERE state = 'active';

-- The words of each network's published titles, each once: a search whose words find nothing is
-- corrected to the closest of these (pg_trgm similarity over this small table), then searched as
-- words. A listing's words join when it is published; the job words.rebuild makes the table again
-- from the active listings, so words of listings gone (removed, expired, erased) leave within the hour.
CREATE TABLE title_words (
    university_id text NOT NULL,
    word text NOT NULL,
    PRIMARY KEY (university_id, word)
);
CREATE INDEX title_words_trigrams ON title_words USING gin (word extensions.gin_trgm_ops);

-- Pictures on the kit's media store: who uploaded each, and the listing that shows it (at a
-- position, the cover first). One no listing names within a day is deleted.
CREATE TABLE photos (
    media_id uuid PRIMARY KEY REFERENCES media_objects (id) ON DELETE CASCADE,
    uploaded_by uuid NOT NULL,
    listing_id uuid REFERENCES listings (id) ON DELETE SET NULL,
    position integer,
    created_at timestamptz NOT NULL,
    UNIQUE (listing_id, position)
);
CREATE INDEX photos_uploader ON photos (uploaded_by);
CREATE INDEX photos_unattached ON photos (created_at) WHERE listing_id IS NULL;
