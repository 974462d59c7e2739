-- The app a session was started for (a ClientApp id: melon, refunds, household, marketplace,
-- fundraising); its access tokens name it (client_id). Sessions from before have none: their next
-- refresh ends them (through the usual path, which tells notifications), and the app logs in again.
ALTER TABLE sessions ADD COLUMN app text;

-- The apps a policy applies to; NULL: every app (one account, one company: the terms and the
-- privacy notice). Each app lists, and its users sign, the policies that apply to it.
ALTER TABLE policies ADD COLUMN apps text[];
UPDATE policies SET apps = '{marketplace}' WHERE id = 'marketplace-rules';
