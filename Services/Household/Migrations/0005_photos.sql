-- Household pictures on the kit's media store: who uploaded each, and what it shows once a chore's
-- turn, a bill or a board post names it. One that nothing names within a day is deleted.
CREATE TABLE photos (
    media_id uuid PRIMARY KEY REFERENCES media_objects (id) ON DELETE CASCADE,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    uploaded_by uuid NOT NULL REFERENCES members (id),
    -- 'turn', 'bill' or 'post', and its id; NULL while nothing names it.
    attached_to text CHECK (attached_to IN ('turn', 'bill', 'post')),
    attached_id uuid,
    created_at timestamptz NOT NULL
);
CREATE INDEX photos_household ON photos (household_id);
CREATE INDEX photos_attached ON photos (attached_to, attached_id);
CREATE INDEX photos_unattached ON photos (created_at) WHERE attached_to IS NULL;

ALTER TABLE chore_turns ADD COLUMN before_photo uuid REFERENCES photos (media_id) ON DELETE SET NULL;
ALTER TABLE chore_turns ADD COLUMN after_photo uuid REFERENCES photos (media_id) ON DELETE SET NULL;
ALTER TABLE bills ADD COLUMN receipt_photo uuid REFERENCES photos (media_id) ON DELETE SET NULL;
