-- Shared bills, their parts and history, settlements between members, and the running debts they
-- add up to. Amounts are integer minor units with their currency; members are named by member id,
-- so the money history stays whole when someone leaves or their account is erased.
CREATE TABLE bills (
    id uuid PRIMARY KEY,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    -- Orders the list and is its page key.
    seq bigserial NOT NULL,
    title text NOT NULL,
    amount_minor bigint NOT NULL CHECK (amount_minor > 0),
    currency text NOT NULL,
    paid_by uuid NOT NULL REFERENCES members (id),
    bill_date date NOT NULL,
    category text,
    note text,
    split text NOT NULL CHECK (split IN ('equal', 'exact', 'percentage', 'shares')),
    repeats text CHECK (repeats IN ('monthly')),
    -- The day the next copy of a repeating bill is due.
    next_repeat date,
    from_trip boolean NOT NULL DEFAULT false,
    created_by uuid NOT NULL REFERENCES members (id),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    deleted_at timestamptz,
    version integer NOT NULL DEFAULT 1
);
CREATE INDEX bills_household ON bills (household_id, seq);
CREATE INDEX bills_repeating ON bills (next_repeat) WHERE repeats IS NOT NULL AND deleted_at IS NULL;

CREATE TABLE bill_parts (
    bill_id uuid NOT NULL REFERENCES bills (id) ON DELETE CASCADE,
    position integer NOT NULL,
    member_id uuid NOT NULL REFERENCES members (id),
    -- As asked for: minor units, basis points or a count; NULL for an equal split.
    value bigint,
    share_minor bigint NOT NULL,
    PRIMARY KEY (bill_id, position),
    UNIQUE (bill_id, member_id)
);

CREATE TABLE bill_changes (
    bill_id uuid NOT NULL REFERENCES bills (id) ON DELETE CASCADE,
    seq bigserial NOT NULL,
    member_id uuid NOT NULL REFERENCES members (id),
    at timestamptz NOT NULL,
    action text NOT NULL CHECK (action IN ('created', 'updated', 'deleted', 'restored')),
    fields text[],
    PRIMARY KEY (bill_id, seq)
);

CREATE TABLE settlements (
    id uuid PRIMARY KEY,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    seq bigserial NOT NULL,
    from_member uuid NOT NULL REFERENCES members (id),
    to_member uuid NOT NULL REFERENCES members (id),
    amount_minor bigint NOT NULL CHECK (amount_minor > 0),
    currency text NOT NULL,
    reference text,
    recorded_by uuid NOT NULL REFERENCES members (id),
    recorded_at timestamptz NOT NULL,
    confirmed_at timestamptz,
    CHECK (from_member <> to_member)
);
CREATE INDEX settlements_household ON settlements (household_id, seq);

-- What each debtor owes each creditor, before netting a pair's two ways: the sum of the shares of
-- the bills that count and of the confirmed settlements, kept in the transaction that changes them
-- (each household's money changes one at a time), so balances read a few rows, not every bill.
CREATE TABLE debts (
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    currency text NOT NULL,
    debtor uuid NOT NULL REFERENCES members (id),
    creditor uuid NOT NULL REFERENCES members (id),
    amount bigint NOT NULL,
    PRIMARY KEY (household_id, currency, debtor, creditor)
);

-- A bought item that went onto a bill (a shopping trip's), so it goes on no other.
ALTER TABLE grocery_items ADD COLUMN bill_id uuid REFERENCES bills (id) ON DELETE SET NULL;
