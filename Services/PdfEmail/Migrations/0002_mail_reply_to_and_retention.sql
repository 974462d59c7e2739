-- The Reply-To address of a mail (a contact request's user, for example): erased with that
-- account like a recipient. Mail stored before this has it in its message only: read it from the
-- header there.
ALTER TABLE mails ADD COLUMN reply_to text;
UPDATE mails SET reply_to = lower(substring(encode(message, 'escape') FROM 'Reply-To:[^\r\n]*?<?([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+)>?\r'))
WHERE position('Reply-To:' IN encode(message, 'escape')) > 0;
CREATE INDEX mails_reply_to ON mails (reply_to) WHERE reply_to IS NOT NULL;

-- Finished mail is deleted MAIL_RETENTION after it was sent or given up.
CREATE INDEX mails_finished ON mails (coalesce(sent_at, failed_at)) WHERE status <> 'queued';
