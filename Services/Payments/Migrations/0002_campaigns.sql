-- Who uses the fundraising app, under which username (the token's, kept whenever they act).
CREATE TABLE people (
    account_id uuid PRIMARY KEY,
    username text NOT NULL,
    updated_at timestamptz NOT NULL
);

-- A campaign. Open while closed_at is NULL and ends_at is ahead (reads decide at once; nothing has
-- to run at the end date). Closed by its owner, or when the owner's account is erased, its texts go
-- (NULL) and the ledger keeps its money history.
CREATE TABLE campaigns (
    id uuid PRIMARY KEY,
    -- The order of creation: the newest/oldest sorts and their pages.
    seq bigserial UNIQUE,
    owner_id uuid,
    title text,
    story text,
    beneficiary text,
    category text NOT NULL,
    goal_minor bigint NOT NULL CHECK (goal_minor > 0),
    currency text NOT NULL,
    ends_at timestamptz NOT NULL,
    closed_at timestamptz,
    created_at timestamptz NOT NULL,
    version integer NOT NULL DEFAULT 1,
    -- The owner's karma account: what donations take from it stays theirs after an erasure.
    owner_karma uuid NOT NULL REFERENCES ledger_accounts (id),
    title_words tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(title, ''))) STORED,
    CHECK (closed_at IS NOT NULL OR (title IS NOT NULL AND story IS NOT NULL AND beneficiary IS NOT NULL))
);
CREATE INDEX campaigns_owner ON campaigns (owner_id, seq);
CREATE INDEX campaigns_open_ending ON campaigns (ends_at, seq) WHERE closed_at IS NULL;
CREATE INDEX campaigns_title_words ON campaigns USING gin (title_words);

-- A donation to a campaign, as the processor path records it. The ledger posts it once, when it
-- succeeds; refunds and disputes post their own transfers. donor_key stands for the donor in the
-- figures (distinct donors) and stays when the account is erased (donor_id goes).
CREATE TABLE donations (
    id uuid PRIMARY KEY,
    campaign_id uuid NOT NULL REFERENCES campaigns (id),
    donor_id uuid,
    donor_key uuid NOT NULL,
    -- The donor's karma account (kept when the account is erased, like the owner's).
    donor_karma uuid NOT NULL REFERENCES ledger_accounts (id),
    anonymous boolean NOT NULL DEFAULT false,
    gross_minor bigint NOT NULL CHECK (gross_minor > 0),
    fee_minor bigint NOT NULL DEFAULT 0 CHECK (fee_minor >= 0 AND fee_minor <= gross_minor),
    -- Given back so far (refunds and disputes), never more than the gross.
    returned_minor bigint NOT NULL DEFAULT 0 CHECK (returned_minor >= 0 AND returned_minor <= gross_minor),
    currency text NOT NULL,
    succeeded_at timestamptz,
    created_at timestamptz NOT NULL
);
CREATE INDEX donations_campaign ON donations (campaign_id, succeeded_at DESC) WHERE succeeded_at IS NOT NULL;
CREATE INDEX donations_donor ON donations (donor_id, created_at DESC);
-- One pseudonym per donor.
CREATE TABLE donor_keys (
    account_id uuid PRIMARY KEY,
    donor_key uuid NOT NULL UNIQUE
);

CREATE TABLE bookmarks (
    account_id uuid NOT NULL,
    campaign_id uuid NOT NULL REFERENCES campaigns (id),
    seq bigserial UNIQUE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, campaign_id)
);
CREATE INDEX bookmarks_campaign ON bookmarks (campaign_id);
