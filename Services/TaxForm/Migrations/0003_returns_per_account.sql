-- A return's mailings count per account, whatever becomes of its interviews: deleting an interview
-- and answering again no longer resets the day's limit. They go when the account is erased, and a
-- week after the mailing (the limit looks back 24 hours).
ALTER TABLE return_mails DROP CONSTRAINT return_mails_account_id_tax_year_fkey;

-- Each time a return's PDF was filled, for a download or a mail: limits fills per account (a
-- version already filled is served from return_pdfs and is not counted; a fill that failed is
-- taken back). Kept a day.
CREATE TABLE return_fills (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id uuid NOT NULL,
    filled_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX return_fills_recent ON return_fills (account_id, filled_at);

-- The last PDF filled for an interview, sealed with the account's data key like its answers (it
-- shows the full SSN): the same version and rules give the same bytes without filling again. A new
-- version replaces it; it goes with the interview.
CREATE TABLE return_pdfs (
    account_id uuid NOT NULL,
    tax_year integer NOT NULL,
    version integer NOT NULL,
    rules_version text NOT NULL,
    -- The PDF's SHA-256, its ETag: a download the client has is answered without opening the PDF.
    sha256 text NOT NULL,
    sealed bytea NOT NULL,
    filled_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, tax_year),
    FOREIGN KEY (account_id, tax_year) REFERENCES interviews ON DELETE CASCADE
);
