-- A registration attempt: the credentials given with one request to register, held until the code
-- mailed for it is entered with its id (then the account is made from them) or until it expires.
-- Attempts never change one another, so a stranger registering a pending address cannot replace
-- what its owner chose. Its username is held from other addresses while it lasts.
CREATE TABLE registrations (
    id uuid PRIMARY KEY,
    email text NOT NULL,
    username text NOT NULL,
    display_name text NOT NULL,
    -- Argon2id in PHC string format.
    password_hash text NOT NULL,
    university_id text REFERENCES universities (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX registrations_email ON registrations (email, created_at DESC);
CREATE INDEX registrations_username ON registrations (username);
CREATE INDEX registrations_expires_at ON registrations (expires_at);

-- A code belongs to an account (password reset) or to a registration attempt (verification).
ALTER TABLE email_codes
    ALTER COLUMN account_id DROP NOT NULL,
    ADD COLUMN registration_id uuid REFERENCES registrations (id) ON DELETE CASCADE,
    ADD CONSTRAINT email_codes_one_owner CHECK ((account_id IS NULL) <> (registration_id IS NULL));
CREATE INDEX email_codes_registration ON email_codes (registration_id, purpose, created_at DESC) WHERE registration_id IS NOT NULL;

-- Accounts waiting for their code were the old attempts; their clients hold no attempt id, so they
-- register again. Every account left is verified.
DELETE FROM accounts WHERE verified_at IS NULL;
ALTER TABLE accounts ALTER COLUMN verified_at SET DEFAULT now(), ALTER COLUMN verified_at SET NOT NULL;
