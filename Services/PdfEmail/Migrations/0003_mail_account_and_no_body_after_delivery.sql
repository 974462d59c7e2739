-- The account a mail was sent for (a tax return goes to the interview's address, not the account's):
-- erased with that account whatever address it went to. Mail stored before this has none.
ALTER TABLE mails ADD COLUMN account_id uuid;
CREATE INDEX mails_account ON mails (account_id) WHERE account_id IS NOT NULL;

-- A finished mail keeps its envelope and outcome, not its body and attachments (a return's PDF
-- unencrypted, with the full SSN): every mail finished so far loses them now.
UPDATE mails SET message = ''::bytea WHERE status <> 'queued';

-- Accounts erased in the last 30 days: a mail for one that arrives after its erasure (a service's
-- outbox that delivered late) is refused, not stored and sent.
CREATE TABLE erased_accounts (
    account_id uuid PRIMARY KEY,
    erased_at timestamptz NOT NULL DEFAULT now()
);
