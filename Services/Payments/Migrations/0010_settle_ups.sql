-- A settle-up: a household member paying another member's share in the household app, through the
-- same processor path as a donation (the same row, its charge, hold, sweep and reconciliation), for
-- a household instead of a campaign. household asked first whether the payer owes that much; once
-- the processor took the money, it is posted (no karma) and household is told through the outbox
-- (household.settlements.paid.v1). The money is held for the member paid, on a ledger account of
-- theirs ('member'), as a campaign's is for its beneficiary: payouts are out of scope here.
ALTER TABLE donations
    ALTER COLUMN campaign_id DROP NOT NULL,
    -- A settle-up earns no karma.
    ALTER COLUMN donor_karma DROP NOT NULL,
    ADD COLUMN household_id uuid,
    -- The two members by their household member ids, for household's settlement.
    ADD COLUMN payer_member uuid,
    ADD COLUMN payee_member uuid,
    -- The account paid (NULL once it is erased) and its ledger account, kept like a donor's karma.
    ADD COLUMN payee_id uuid,
    ADD COLUMN payee_funds uuid REFERENCES ledger_accounts (id),
    ADD CONSTRAINT donations_campaign_or_household CHECK (
        (campaign_id IS NULL) = (household_id IS NOT NULL)
        AND (campaign_id IS NULL OR donor_karma IS NOT NULL)
        AND (household_id IS NULL OR (payer_member IS NOT NULL AND payee_member IS NOT NULL AND payee_funds IS NOT NULL)));
CREATE INDEX donations_payee ON donations (payee_id) WHERE payee_id IS NOT NULL;
-- A settle-up that succeeded counts as under way while its outbox row waits (SettleUpHandlers).
CREATE INDEX IF NOT EXISTS outbox_waiting_keys ON outbox (idempotency_key) WHERE delivered_at IS NULL;

ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN ('processor', 'fees', 'campaign', 'karma', 'member'));
-- Whose karma, or whose money held (a member paid in the household app); NULL once erased.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_check1;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_account_check CHECK (kind IN ('karma', 'member') OR account_id IS NULL);
CREATE UNIQUE INDEX ledger_accounts_members ON ledger_accounts (account_id) WHERE kind = 'member';

ALTER TABLE ledger_transfers ALTER COLUMN campaign_id DROP NOT NULL;
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_kind_check;
ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_kind_check CHECK (kind IN ('donation', 'refund', 'dispute', 'fee', 'settle_up'));
