-- Attempts also count per account and client network together ('account-network', key
-- "<account> <network>"): a client's failures hold up that client, not the owner elsewhere. The
-- account-wide count ('account') has a higher allowance and does not apply to a network the account
-- has logged in from before (known_networks).
ALTER TABLE attempts DROP CONSTRAINT attempts_scope_check;
ALTER TABLE attempts ADD CONSTRAINT attempts_scope_check CHECK (scope IN ('account', 'account-network', 'ip'));

-- The client networks (IPv4 address, IPv6 /64) an account has logged in from, with the last time;
-- dropped after the security-event retention.
CREATE TABLE known_networks (
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    network text NOT NULL,
    last_login_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, network)
);
CREATE INDEX known_networks_last_login_at ON known_networks (last_login_at);

-- What a security event adds: for `blocked`, the action held up (login, code, mail, refresh); for
-- `refresh_token_refused`, why (expired, session_ended).
ALTER TABLE security_events ADD COLUMN detail text;
