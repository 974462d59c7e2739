-- A picture sent in chat: a kept image (the kit's media_objects) whose files are sealed under the
-- conversation's key. It goes with its message: deleted for both, purged, or cleared by both sides
-- (the service deletes the image in the same transaction). Erasing its sender's account erases it
-- (the kit's rule for an uploader), and the message keeps no picture.
ALTER TABLE messages ADD COLUMN media_id uuid UNIQUE REFERENCES media_objects (id) ON DELETE SET NULL;
ALTER TABLE messages DROP CONSTRAINT messages_kind_check;
ALTER TABLE messages ADD CONSTRAINT messages_kind_check CHECK (kind IN ('text', 'meeting', 'location', 'timer', 'image'));
