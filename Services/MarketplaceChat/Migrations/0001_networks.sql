-- The university networks the marketplace serves, as data: a new network is rows here (its id is
-- auth's university id, the access token's `univ`), each with one currency and its campuses, whose
-- ids are auth's (auth.campuses). The categories are one list for every network.
CREATE TABLE networks (
    university_id text PRIMARY KEY CHECK (university_id ~ '^[a-z0-9-]{1,64}$'),
    currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$')
);

CREATE TABLE campuses (
    university_id text NOT NULL REFERENCES networks (university_id) ON DELETE CASCADE,
    id text NOT NULL CHECK (id ~ '^[a-z0-9-]{1,64}$'),
    name text NOT NULL,
    PRIMARY KEY (university_id, id)
);

CREATE TABLE categories (
    id text PRIMARY KEY CHECK (id ~ '^[a-z0-9-]{1,40}$'),
    name text NOT NULL,
    position integer NOT NULL UNIQUE
);

INSERT INTO networks (university_id, currency) VALUES
    ('tcd', 'EUR'), ('ucd', 'EUR'), ('universityofgalway', 'EUR'), ('bu', 'USD'), ('northeastern', 'USD');

-- The same campuses as auth's 0009_profiles.sql.
INSERT INTO campuses (university_id, id, name) VALUES
    ('tcd', 'college-green', 'College Green, Dublin'),
    ('ucd', 'belfield', 'Belfield, Dublin'),
    ('universityofgalway', 'galway', 'Galway'),
    ('bu', 'charles-river', 'Charles River, Boston'),
    ('bu', 'medical', 'Medical Campus, Boston'),
    ('northeastern', 'boston', 'Boston');

INSERT INTO categories (id, name, position) VALUES
    ('textbooks', 'Textbooks and notes', 1),
    ('electronics', 'Electronics', 2),
    ('furniture', 'Furniture', 3),
    ('kitchen', 'Kitchen and household', 4),
    ('clothing', 'Clothing and accessories', 5),
    ('bikes', 'Bikes and transport', 6),
    ('sports', 'Sports and outdoors', 7),
    ('music', 'Music and instruments', 8),
    ('tickets', 'Tickets and events', 9),
    ('other', 'Everything else', 10);
