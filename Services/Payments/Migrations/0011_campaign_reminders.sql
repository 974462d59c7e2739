-- What each campaign's owner (and those who bookmarked it) were told, so each push goes once:
-- weekly_progress is the owner's setting for a push each week while the campaign is open, and
-- progress_told_at when the last went; ending_told_at when "three days left" went; milestones_told
-- the highest share of the goal told (basis points: 5000 half way, 10000 the goal), so a donation
-- that crosses a milestone again after a refund does not tell it twice.
ALTER TABLE campaigns
    ADD COLUMN weekly_progress boolean NOT NULL DEFAULT true,
    ADD COLUMN progress_told_at timestamptz,
    ADD COLUMN ending_told_at timestamptz,
    ADD COLUMN milestones_told integer NOT NULL DEFAULT 0;
-- The reminders job finds the open campaigns whose week is up (those near their end by campaigns_open_ending).
CREATE INDEX campaigns_open_progress ON campaigns (COALESCE(progress_told_at, created_at)) WHERE closed_at IS NULL AND weekly_progress;
