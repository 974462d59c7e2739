ALTER TABLE things ADD COLUMN amount_cents bigint NOT NULL DEFAULT 0;
CREATE TABLE effects (
    id bigserial PRIMARY KEY,
    note text NOT NULL
);
