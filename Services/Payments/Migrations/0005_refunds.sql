-- A refund of (part of) a succeeded donation: asked for by its campaign's owner or an admin, or
-- made at the processor and learnt from it (requested_by NULL). Recorded before the processor is
-- called, its amount held against what is left of the donation while it is pending; the
-- processor's id for it stored once it answers. It is posted to the ledger once, when it
-- succeeds, as the transfer made from that processor id, whichever of the reply, a webhook or the
-- sweep sees it first.
CREATE TABLE refunds (
    id uuid PRIMARY KEY,
    donation_id uuid NOT NULL REFERENCES donations (id),
    amount_minor bigint NOT NULL CHECK (amount_minor > 0),
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    processor_id text UNIQUE,
    -- Who asked: NULL when it was made at the processor, or once their account is erased.
    requested_by uuid,
    client_key text,
    fingerprint text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    held_until timestamptz
);
CREATE UNIQUE INDEX refunds_client_key ON refunds (requested_by, client_key) WHERE client_key IS NOT NULL;
CREATE INDEX refunds_donation ON refunds (donation_id);
CREATE INDEX refunds_pending ON refunds (updated_at) WHERE status = 'pending';
-- A campaign's donations for its owner, the newest first.
CREATE INDEX donations_campaign_seq ON donations (campaign_id, seq) WHERE status = 'succeeded';
