-- The ledger's rules, checked once per statement instead of once per entry: a transfer's entries
-- are recorded by one statement (a batch of transfers, or one), which must leave each of them
-- balanced in each unit with two entries at least, and which moves the balances of the accounts it
-- touches by their sums, their rows locked in the order of their ids (so two postings never wait
-- on each other in a circle). History stays append-only (0001).
DROP TRIGGER ledger_entries_balanced ON ledger_entries;
DROP TRIGGER ledger_entries_balance ON ledger_entries;
DROP FUNCTION ledger_transfer_balances();
DROP FUNCTION ledger_entry_moves_balance();

CREATE FUNCTION ledger_entries_posted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM new_entries e JOIN ledger_accounts a ON a.id = e.account_id
        GROUP BY e.transfer_id, a.unit HAVING sum(e.amount) <> 0 OR count(*) < 2
    ) THEN
        RAISE EXCEPTION 'a ledger transfer does not balance' USING ERRCODE = 'check_violation';
    END IF;
    IF EXISTS (
        SELECT 1 FROM (SELECT transfer_id, count(*) AS entries FROM new_entries GROUP BY transfer_id) n
        WHERE (SELECT count(*) FROM ledger_entries e WHERE e.transfer_id = n.transfer_id) <> n.entries
    ) THEN
        RAISE EXCEPTION 'a ledger transfer is recorded by one statement' USING ERRCODE = 'check_violation';
    END IF;
    -- FOR NO KEY UPDATE, as the UPDATE itself takes: the entries' foreign keys hold KEY SHARE on the same rows.
    PERFORM 1 FROM ledger_accounts WHERE id IN (SELECT account_id FROM new_entries) ORDER BY id FOR NO KEY UPDATE;
    UPDATE ledger_accounts a SET balance = a.balance + n.total
    FROM (SELECT account_id, sum(amount) AS total FROM new_entries GROUP BY account_id) n
    WHERE a.id = n.account_id;
    RETURN NULL;
END $$;
CREATE TRIGGER ledger_entries_posted AFTER INSERT ON ledger_entries REFERENCING NEW TABLE AS new_entries
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_posted();
