-- The account a mail was sent for (a tax return goes to the interview's address, not the account's):
-- erased with that account whatever address it went to. Mail stored before this has none.
ALTER TABLE mails ADD COLUMN account_id uuid;
CREATE INDEX mails_account ON mails (account_id) WHERE account_id IS NOT NULL;

-- A finished mail keeps its envelope and outcome, not its body and attachments (a return's PDF
-- unencrypted, with the full SSN): every mail finished so far loses them now.
UPDATE mails SET message = ''::bytea WHERE status <> 'queued';
