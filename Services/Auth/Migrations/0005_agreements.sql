-- Policies an account holder agrees to (terms, privacy notice, ...), versioned: the current one is
-- the highest version already in effect. Publishing a new version is a migration inserting a row.
CREATE TABLE policies (
    id text NOT NULL,
    version integer NOT NULL CHECK (version > 0),
    title text NOT NULL,
    url text NOT NULL,
    -- Whether the apps need it signed before an account is used.
    required boolean NOT NULL,
    effective_at timestamptz NOT NULL,
    PRIMARY KEY (id, version)
);

-- Signatures: one row per policy version an account signed; withdrawing keeps the row.
CREATE TABLE agreements (
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    policy_id text NOT NULL,
    version integer NOT NULL,
    signed_at timestamptz NOT NULL,
    withdrawn_at timestamptz,
    PRIMARY KEY (account_id, policy_id, version),
    FOREIGN KEY (policy_id, version) REFERENCES policies (id, version)
);

INSERT INTO policies (id, version, title, url, required, effective_at) VALUES
    ('terms', 1, 'Terms of Service', 'https://melon.example/legal/terms/1', true, '2026-09-01T00:00:00Z'),
    ('privacy', 1, 'Privacy Notice', 'https://melon.example/legal/privacy/1', true, '2026-09-01T00:00:00Z'),
    ('marketplace-rules', 1, 'Marketplace community rules', 'https://melon.example/legal/marketplace-rules/1', false, '2026-09-01T00:00:00Z'),
    ('marketing-email', 1, 'News and offers by email', 'https://melon.example/legal/marketing-email/1', false, '2026-09-01T00:00:00Z');
