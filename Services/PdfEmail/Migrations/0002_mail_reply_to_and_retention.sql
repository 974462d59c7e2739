-- The Reply-To address of a mail (a contact request's user, for example): erased with that
-- account like a recipient. Mail stored before this has it in its message only: read it from its
-- header (the headers end at the first blank line; what a user wrote below is not a header).
ALTER TABLE mails ADD COLUMN reply_to text;
UPDATE mails SET reply_to = lower(coalesce(
        substring(head FROM '(?in)^Reply-To:[^\r\n<]*<([^<>\s]+)>'),
        substring(head FROM '(?in)^Reply-To:[ \t]*([^<>\s,]+@[^<>\s,]+)[ \t]*\r?$')))
FROM (SELECT id, substring(encode(message, 'escape') FROM '^(.*?)\r?\n\r?\n') AS head FROM mails) AS headers
WHERE headers.id = mails.id AND headers.head ~* '(?n)^Reply-To:';
CREATE INDEX mails_reply_to ON mails (reply_to) WHERE reply_to IS NOT NULL;

-- Finished mail is deleted MAIL_RETENTION after it was sent or given up.
CREATE INDEX mails_finished ON mails (coalesce(sent_at, failed_at)) WHERE status <> 'queued';
