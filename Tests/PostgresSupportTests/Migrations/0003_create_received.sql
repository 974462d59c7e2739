CREATE TABLE received (
    id bigserial PRIMARY KEY,
    note text NOT NULL
);
