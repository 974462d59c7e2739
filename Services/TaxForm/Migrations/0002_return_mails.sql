-- Each time a return was mailed: when, which interview version, and the attachment's SHA-256 (no
-- address and no content). It limits how often a return can be mailed and goes with the interview.
CREATE TABLE return_mails (
    account_id uuid NOT NULL,
    tax_year integer NOT NULL,
    version integer NOT NULL,
    sha256 text NOT NULL,
    encrypted boolean NOT NULL,
    mailed_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (account_id, tax_year) REFERENCES interviews ON DELETE CASCADE
);
CREATE INDEX return_mails_recent ON return_mails (account_id, mailed_at);
