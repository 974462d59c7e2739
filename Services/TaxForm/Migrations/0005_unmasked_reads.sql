-- Each read of an account's unmasked data (the return's PDF downloaded or mailed, an export): when,
-- what, from which app and session. The owner reads it (GET /v1/tax/reads); it goes with the account.
CREATE TABLE unmasked_reads (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id uuid NOT NULL,
    at timestamptz NOT NULL,
    what text NOT NULL CHECK (what IN ('pdf', 'mail', 'export')),
    tax_year integer,
    app text,
    session_id uuid
);
CREATE INDEX unmasked_reads_account ON unmasked_reads (account_id, id DESC);
