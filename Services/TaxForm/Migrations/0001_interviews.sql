-- Each account's data key (32 random bytes), wrapped with AES-256-GCM by TAX_FORM_KEY. Everything the
-- account answered is sealed with it; deleting the row leaves those bytes unreadable.
CREATE TABLE data_keys (
    account_id uuid PRIMARY KEY,
    wrapped bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- One interview per account and tax year: the answers and skipped questions, sealed; the version
-- each saved change moves by one (a change made against another version is refused).
CREATE TABLE interviews (
    account_id uuid NOT NULL,
    tax_year integer NOT NULL,
    version integer NOT NULL CHECK (version > 0),
    sealed bytea NOT NULL,
    filed_at timestamptz,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, tax_year)
);

-- Every saved change, sealed the same way: which answers changed, from what to what.
CREATE TABLE interview_changes (
    account_id uuid NOT NULL,
    tax_year integer NOT NULL,
    version integer NOT NULL,
    sealed bytea NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, tax_year, version),
    FOREIGN KEY (account_id, tax_year) REFERENCES interviews ON DELETE CASCADE
);
