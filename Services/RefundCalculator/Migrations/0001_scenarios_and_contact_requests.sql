-- Saved scenarios: a signed-in user's answers under a name. Only the owner reads them.
CREATE TABLE scenarios (
    id uuid PRIMARY KEY,
    -- Paging order (newest first) that does not move when a scenario is edited.
    seq bigserial NOT NULL UNIQUE,
    account_id uuid NOT NULL,
    name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    scenario jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX scenarios_by_account ON scenarios (account_id, seq DESC);

-- Requests to be contacted by the refund company, as sent, with the estimate mailed with them.
CREATE TABLE contact_requests (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    email text NOT NULL,
    phone text NOT NULL,
    preferred_time text NOT NULL,
    scenario jsonb NOT NULL,
    refund_cents bigint NOT NULL,
    tax_year integer NOT NULL,
    rules_version text NOT NULL,
    client_ip text,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX contact_requests_by_email ON contact_requests (email, created_at);
CREATE INDEX contact_requests_by_ip ON contact_requests (client_ip, created_at);
