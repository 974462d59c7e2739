-- Fails if run twice: no IF NOT EXISTS, and the seed row has a unique name.
CREATE TABLE things (
    id bigserial PRIMARY KEY,
    name text NOT NULL UNIQUE
);
INSERT INTO things (name) VALUES ('seed');
