-- Households, who belongs to them, and invite codes. Members are named by a member id of the
-- household's own, so what a member did stays theirs after they leave or their account is erased
-- (account_id NULL: a former member).
CREATE TABLE households (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    currency text NOT NULL,
    simplify_debts boolean NOT NULL DEFAULT true,
    reminder_lead_minutes integer NOT NULL DEFAULT 60,
    version integer NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE TABLE members (
    id uuid PRIMARY KEY,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    account_id uuid,
    role text NOT NULL CHECK (role IN ('owner', 'member')),
    -- Orders members by when they first joined; a member who comes back keeps their place and id.
    seq bigserial NOT NULL,
    joined_at timestamptz NOT NULL,
    left_at timestamptz
);
-- One row per account and household, whether they belong now or left; one owner among those who belong.
CREATE UNIQUE INDEX members_account ON members (household_id, account_id);
CREATE UNIQUE INDEX members_one_owner ON members (household_id) WHERE role = 'owner' AND left_at IS NULL;
CREATE INDEX members_by_account ON members (account_id) WHERE account_id IS NOT NULL;

CREATE TABLE invites (
    code text PRIMARY KEY,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    created_by uuid NOT NULL REFERENCES members (id),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX invites_household ON invites (household_id, created_at);
CREATE INDEX invites_expiry ON invites (expires_at);
