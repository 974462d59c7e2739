-- Reports and their moderation. A case gathers the reports of one thing (a listing, a message or an
-- account) while it is open; a moderator's decision closes it, and a new report opens a new case.
CREATE TABLE moderation_cases (
    id uuid PRIMARY KEY,
    number bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    subject_kind text NOT NULL CHECK (subject_kind IN ('listing', 'message', 'account')),
    subject_id uuid NOT NULL,
    -- Who answers for it: the listing's seller, the message's sender, the account (NULL once erased).
    account_id uuid,
    -- The network of a marketplace case; NULL for a private (Nebula) conversation's message.
    university_id text,
    reporters integer NOT NULL DEFAULT 0,
    -- Set when enough users reported it to hide it until decided: the listing's state before
    -- ('hidden' for an account, whose listings leave the feed while it is).
    hidden_state text,
    -- What was reported as it was, sealed under the case's own key (the kit's account_keys keyed by
    -- the case, wrapped by MARKETPLACE_CHAT_KEY): snapshot and key go when the case closes.
    snapshot bytea,
    open boolean NOT NULL DEFAULT true,
    opened_at timestamptz NOT NULL,
    closed_at timestamptz
);
CREATE UNIQUE INDEX moderation_cases_open_subject ON moderation_cases (subject_kind, subject_id) WHERE open;
CREATE INDEX moderation_cases_queue ON moderation_cases (open, number);
CREATE INDEX moderation_cases_account ON moderation_cases (account_id);

-- One report per user and case; who reported is never shown, and goes when their account does.
CREATE TABLE moderation_reports (
    case_id uuid NOT NULL REFERENCES moderation_cases (id) ON DELETE CASCADE,
    reporter uuid NOT NULL,
    reason text NOT NULL CHECK (reason IN ('spam', 'scam', 'harassment', 'inappropriate', 'prohibited', 'fake_account', 'other')),
    details text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (case_id, reporter)
);
CREATE INDEX moderation_reports_reporter ON moderation_reports (reporter);

-- Every decision, the audit log: rows are added, never changed, except that an erased account's id
-- leaves them.
CREATE TABLE moderation_decisions (
    id uuid PRIMARY KEY,
    number bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    action text NOT NULL CHECK (action IN ('dismiss', 'remove', 'warn', 'suspend', 'lift', 'uphold', 'overturn')),
    case_id uuid REFERENCES moderation_cases (id),
    appeal_of uuid REFERENCES moderation_decisions (id),
    account_id uuid,
    account_username text NOT NULL,
    moderator_id uuid,
    moderator_username text NOT NULL,
    note text NOT NULL,
    -- A removed listing's state before, for an overturned removal.
    previous_state text,
    suspended_until timestamptz,
    decided_at timestamptz NOT NULL
);
CREATE INDEX moderation_decisions_account ON moderation_decisions (account_id, number);

-- Suspensions in force: the account cannot use the marketplace and its listings are out of sight.
CREATE TABLE suspensions (
    account_id uuid PRIMARY KEY,
    decision_id uuid NOT NULL REFERENCES moderation_decisions (id),
    -- NULL: until lifted.
    until timestamptz
);

-- An account's appeal of a decision about it: one per decision.
CREATE TABLE appeals (
    decision_id uuid PRIMARY KEY REFERENCES moderation_decisions (id),
    number bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    account_id uuid NOT NULL,
    text text NOT NULL,
    state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'upheld', 'overturned')),
    created_at timestamptz NOT NULL,
    answered_at timestamptz
);
CREATE INDEX appeals_open ON appeals (number) WHERE state = 'open';
