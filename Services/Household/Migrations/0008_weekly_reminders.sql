-- When each member who owes money was last reminded by the weekly job (or first seen owing): the
-- next reminder goes a week later, while the debt is open; a settled member's row goes.
CREATE TABLE weekly_reminders (
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    member_id uuid NOT NULL REFERENCES members (id),
    last_at timestamptz NOT NULL,
    PRIMARY KEY (household_id, member_id)
);
