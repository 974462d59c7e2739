-- A reserved listing is held for one buyer (an accepted offer) until reserved_until.
ALTER TABLE listings ADD COLUMN reserved_for uuid, ADD COLUMN reserved_until timestamptz;

-- Buyers' offers: open (the seller's move), countered (the buyer's move), each for 48 hours;
-- accepted (the listing reserved for 72 hours); declined; expired. One open or countered offer per
-- buyer and listing. The job offers.expire lapses what ran out and ends reservations without a sale.
CREATE TABLE offers (
    id uuid PRIMARY KEY,
    number bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    listing_id uuid NOT NULL REFERENCES listings (id) ON DELETE CASCADE,
    buyer uuid NOT NULL,
    amount_minor bigint NOT NULL CHECK (amount_minor > 0),
    counter_minor bigint CHECK (counter_minor > 0),
    currency text NOT NULL,
    state text NOT NULL CHECK (state IN ('open', 'countered', 'accepted', 'declined', 'expired')),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX offers_one_open ON offers (listing_id, buyer) WHERE state IN ('open', 'countered');
CREATE INDEX offers_listing ON offers (listing_id, number DESC);
CREATE INDEX offers_buyer ON offers (buyer);
CREATE INDEX offers_expiring ON offers (expires_at) WHERE state IN ('open', 'countered', 'accepted');
