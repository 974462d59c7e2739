-- Outgoing mail: stored rendered when accepted (so every attempt sends the same bytes and
-- Message-ID), then delivered by the queue consumers of every pdf-email instance.
CREATE TABLE mails (
    id uuid PRIMARY KEY,
    status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
    sender text NOT NULL,
    recipients text[] NOT NULL,
    message bytea NOT NULL,
    template text,
    requested_by text NOT NULL,
    request_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    sent_at timestamptz,
    failed_at timestamptz,
    reply text
);

CREATE INDEX mails_due ON mails (next_attempt_at) WHERE status = 'queued';
