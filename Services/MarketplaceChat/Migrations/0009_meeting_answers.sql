-- A proposed meeting answered by the side that did not propose it, once: accepted (agreed by both,
-- proposing being the proposer's yes) or declined. The answer goes with its message.
ALTER TABLE messages ADD COLUMN meeting_answer text CHECK (meeting_answer IN ('accepted', 'declined'));
ALTER TABLE messages ADD COLUMN meeting_answered_at timestamptz;
ALTER TABLE messages ADD CONSTRAINT messages_meeting_answer
    CHECK ((meeting_answer IS NULL) = (meeting_answered_at IS NULL) AND (meeting_answer IS NULL OR kind = 'meeting'));
