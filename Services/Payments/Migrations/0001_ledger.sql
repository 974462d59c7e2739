-- The double-entry ledger, with TigerBeetle's invariants: every transfer balances, history is never
-- rewritten. An account holds one unit (EUR, or KARMA for karma points); an entry debits (positive)
-- or credits (negative) one account within one transfer. PostgreSQL itself holds the rules:
--   * a transfer's entries sum to zero in each unit, checked when its transaction commits;
--   * no transfer or entry is ever updated or deleted;
--   * each account's balance moves with its entries, in the same statement (the trigger), so the
--     reconciliation job can prove that every balance equals the sum of its entries.
CREATE TABLE ledger_accounts (
    id uuid PRIMARY KEY,
    -- processor: our money at the payment processor (EUR); fees: what the processor kept (EUR);
    -- campaign: the funds a campaign holds for its beneficiary (EUR, a credit balance);
    -- karma: an account's karma points (KARMA).
    kind text NOT NULL CHECK (kind IN ('processor', 'fees', 'campaign', 'karma')),
    unit text NOT NULL CHECK (unit ~ '^[A-Z]{3,5}$'),
    campaign_id uuid,
    -- Whose karma; NULL once their account is erased (the entries stay, anonymised).
    account_id uuid,
    balance bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    CHECK ((kind = 'campaign') = (campaign_id IS NOT NULL)),
    CHECK (kind = 'karma' OR account_id IS NULL),
    CHECK ((kind = 'karma') = (unit = 'KARMA'))
);
CREATE UNIQUE INDEX ledger_accounts_singletons ON ledger_accounts (kind, unit) WHERE kind IN ('processor', 'fees');
CREATE UNIQUE INDEX ledger_accounts_campaigns ON ledger_accounts (campaign_id) WHERE kind = 'campaign';
CREATE UNIQUE INDEX ledger_accounts_karma ON ledger_accounts (account_id) WHERE kind = 'karma';

-- A transfer: one donation's success, refund or dispute, with the campaign and donation it is for.
CREATE TABLE ledger_transfers (
    id uuid PRIMARY KEY,
    seq bigserial UNIQUE,
    kind text NOT NULL CHECK (kind IN ('donation', 'refund', 'dispute')),
    campaign_id uuid NOT NULL,
    donation_id uuid NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX ledger_transfers_campaign ON ledger_transfers (campaign_id, kind);
CREATE INDEX ledger_transfers_donation ON ledger_transfers (donation_id);

CREATE TABLE ledger_entries (
    transfer_id uuid NOT NULL REFERENCES ledger_transfers (id),
    account_id uuid NOT NULL REFERENCES ledger_accounts (id),
    -- Debit positive, credit negative, in the account's unit.
    amount bigint NOT NULL CHECK (amount <> 0),
    PRIMARY KEY (transfer_id, account_id)
);
CREATE INDEX ledger_entries_account ON ledger_entries (account_id);

CREATE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: % on % is refused', TG_OP, TG_TABLE_NAME USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER ledger_transfers_immutable BEFORE UPDATE OR DELETE ON ledger_transfers FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER ledger_entries_immutable BEFORE UPDATE OR DELETE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER ledger_transfers_no_truncate BEFORE TRUNCATE ON ledger_transfers FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();

-- Each entry moves its account's balance, in its own statement.
CREATE FUNCTION ledger_entry_moves_balance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE ledger_accounts SET balance = balance + NEW.amount WHERE id = NEW.account_id;
    RETURN NULL;
END $$;
CREATE TRIGGER ledger_entries_balance AFTER INSERT ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_entry_moves_balance();

-- At commit, the transfer of each new entry sums to zero in each unit, with two entries at least.
CREATE FUNCTION ledger_transfer_balances() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
        WHERE e.transfer_id = NEW.transfer_id GROUP BY a.unit HAVING sum(e.amount) <> 0 OR count(*) < 2
    ) THEN
        RAISE EXCEPTION 'ledger transfer % does not balance', NEW.transfer_id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_transfer_balances();
