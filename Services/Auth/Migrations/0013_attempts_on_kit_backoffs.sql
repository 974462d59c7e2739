-- The attempt counters move onto the kit's back-offs (the `backoffs` table every service has, keyed
-- by a hash of the email, account or network, never the text). Counters and blocks under way when
-- this runs start again from zero: at most one window (AUTH_ATTEMPTS_WINDOW) of failures is forgotten.
DROP TABLE attempts;
