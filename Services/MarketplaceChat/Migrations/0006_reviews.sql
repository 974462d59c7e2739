-- Who bought a listing sold through the marketplace (the buyer of one of its conversations).
ALTER TABLE listings ADD COLUMN buyer uuid;

-- Each side of a sale reviews the other once, within 14 days (shown_at: the sale + 14 days). A review
-- is shown once the other side's is in, or from shown_at: double-blind, so neither answers the
-- other's. An erased author leaves the review without a name; an erased subject takes theirs along.
CREATE TABLE reviews (
    number bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    listing_id uuid NOT NULL,
    author_role text NOT NULL CHECK (author_role IN ('buyer', 'seller')),
    author uuid,
    subject uuid NOT NULL,
    university_id text NOT NULL,
    listing_title text NOT NULL,
    stars smallint NOT NULL CHECK (stars BETWEEN 1 AND 5),
    text text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    shown_at timestamptz NOT NULL,
    PRIMARY KEY (listing_id, author_role)
);
CREATE INDEX reviews_subject ON reviews (subject, number DESC);
CREATE INDEX reviews_author ON reviews (author);
