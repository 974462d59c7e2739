-- Attempt counters behind the rate limits: per action (login, code, mail, refresh), per account
-- (the email as given, so unknown addresses are limited the same way) and per client IP. Past the
-- free attempts each counted attempt blocks the key for longer (AUTH_BACKOFF_FIRST doubling up to
-- AUTH_BACKOFF_MAX); a key whose last attempt is older than AUTH_ATTEMPTS_WINDOW starts again.
CREATE TABLE attempts (
    action text NOT NULL,
    scope text NOT NULL CHECK (scope IN ('account', 'ip')),
    key text NOT NULL,
    count integer NOT NULL,
    last_at timestamptz NOT NULL,
    blocked_until timestamptz,
    PRIMARY KEY (action, scope, key)
);
CREATE INDEX attempts_last_at ON attempts (last_at);
