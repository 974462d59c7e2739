-- Chores: a due time that moves on at every turn, the members it rotates over, and each turn as it
-- ended (on time, late or skipped), for the history and the stats. A member marked away is passed
-- over by the rotations.
ALTER TABLE members ADD COLUMN away boolean NOT NULL DEFAULT false;

CREATE TABLE chores (
    id uuid PRIMARY KEY,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    title text NOT NULL,
    description text,
    frequency text NOT NULL CHECK (frequency IN ('once', 'daily', 'weekly', 'monthly')),
    weekdays bigint[] NOT NULL DEFAULT '{}',
    time_zone text NOT NULL,
    -- The first due time: a monthly chore keeps its day of the month.
    anchor_at timestamptz NOT NULL,
    -- The current turn's due time; NULL once a `once` chore is done.
    due_at timestamptz,
    -- The next turn's due time: when it comes with the current turn not done, that turn is skipped.
    skip_at timestamptz,
    -- Member ids in turn (of members who belong or belonged), and the index of whose turn it is.
    rotation uuid[] NOT NULL,
    turn integer NOT NULL DEFAULT 0,
    created_by uuid NOT NULL REFERENCES members (id),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    done_at timestamptz,
    version integer NOT NULL DEFAULT 1
);
CREATE INDEX chores_household ON chores (household_id, due_at);
CREATE INDEX chores_skip ON chores (skip_at) WHERE skip_at IS NOT NULL;

CREATE TABLE chore_turns (
    id uuid PRIMARY KEY,
    chore_id uuid NOT NULL REFERENCES chores (id) ON DELETE CASCADE,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    seq bigserial NOT NULL,
    due_at timestamptz NOT NULL,
    outcome text NOT NULL CHECK (outcome IN ('on-time', 'late', 'skipped')),
    assignee uuid REFERENCES members (id),
    done_by uuid REFERENCES members (id),
    done_at timestamptz,
    comment text
);
CREATE INDEX chore_turns_chore ON chore_turns (chore_id, seq);
CREATE INDEX chore_turns_household ON chore_turns (household_id, due_at);

CREATE TABLE chore_comments (
    id uuid PRIMARY KEY,
    chore_id uuid NOT NULL REFERENCES chores (id) ON DELETE CASCADE,
    seq bigserial NOT NULL,
    member_id uuid NOT NULL REFERENCES members (id),
    at timestamptz NOT NULL,
    text text NOT NULL
);
CREATE INDEX chore_comments_chore ON chore_comments (chore_id, seq);
