-- First and last name beside the display name (the marketplace asks for them at sign-up); either
-- may be left out. They are shown to the account holder alone; others see the display name.
ALTER TABLE accounts ADD COLUMN first_name text, ADD COLUMN last_name text;
ALTER TABLE registrations ADD COLUMN first_name text, ADD COLUMN last_name text;

-- A university's campuses, for the login screen's picker; `main` is the one named beside the
-- university in profiles. Adding a campus is a migration that inserts a row.
CREATE TABLE campuses (
    university_id text NOT NULL REFERENCES universities (id) ON DELETE CASCADE,
    id text NOT NULL CHECK (id ~ '^[a-z0-9-]{1,64}$'),
    name text NOT NULL,
    main boolean NOT NULL DEFAULT false,
    PRIMARY KEY (university_id, id)
);
CREATE UNIQUE INDEX campuses_one_main ON campuses (university_id) WHERE main;

INSERT INTO campuses (university_id, id, name, main) VALUES
    ('tcd', 'college-green', 'College Green, Dublin', true),
    ('ucd', 'belfield', 'Belfield, Dublin', true),
    ('universityofgalway', 'galway', 'Galway', true),
    ('bu', 'charles-river', 'Charles River, Boston', true),
    -- Source: bu.edu, "Medical Campus" (the South End, Boston).
    ('bu', 'medical', 'Medical Campus, Boston', false),
    ('northeastern', 'boston', 'Boston', true);
ALTER TABLE universities DROP COLUMN campus;

-- Member search: a username, or a display name, by its beginning (auth.users.search.v1).
CREATE INDEX accounts_username_prefix ON accounts (username text_pattern_ops);
CREATE INDEX accounts_display_name_prefix ON accounts (lower(display_name) text_pattern_ops);
