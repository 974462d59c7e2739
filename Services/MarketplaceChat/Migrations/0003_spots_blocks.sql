-- Safe meeting spots per campus, as data. The rows below are SAMPLE entries for the seeded networks:
-- well-known public places on each campus at approximate coordinates, not a university's list of
-- emergency telephone points (which is not reachable from here); a university's own list replaces
-- them through a migration like this one.
CREATE TABLE spots (
    university_id text NOT NULL,
    campus_id text NOT NULL,
    id text NOT NULL CHECK (id ~ '^[a-z0-9-]{1,64}$'),
    name text NOT NULL,
    description text NOT NULL,
    latitude numeric(8, 6) NOT NULL CHECK (latitude BETWEEN -90 AND 90),
    longitude numeric(9, 6) NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    hours text NOT NULL,
    PRIMARY KEY (university_id, id),
    FOREIGN KEY (university_id, campus_id) REFERENCES campuses (university_id, id) ON DELETE CASCADE
);

INSERT INTO spots (university_id, campus_id, id, name, description, latitude, longitude, hours) VALUES
    ('tcd', 'college-green', 'front-arch', 'Front Arch', 'The main entrance from College Green, under the arch', 53.344600, -6.259000,
     'Sample entry: confirm the hours with campus security'),
    ('ucd', 'belfield', 'student-centre', 'Student Centre', 'The main entrance of the Student Centre', 53.307200, -6.223300,
     'Sample entry: confirm the hours with campus security'),
    ('universityofgalway', 'galway', 'quadrangle', 'Quadrangle', 'The arch into the Quadrangle', 53.278400, -9.060400,
     'Sample entry: confirm the hours with campus security'),
    ('bu', 'charles-river', 'gsu', 'George Sherman Union', 'The Commonwealth Avenue entrance', 42.351000, -71.108700,
     'Sample entry: confirm the hours with campus security'),
    ('bu', 'medical', 'medical-campus', 'Medical Campus entrance', 'The main entrance on the Medical Campus', 42.335500, -71.072500,
     'Sample entry: confirm the hours with campus security'),
    ('northeastern', 'boston', 'curry-center', 'Curry Student Center', 'The main entrance of the student center', 42.339200, -71.087800,
     'Sample entry: confirm the hours with campus security');

-- Who blocked whom. A block works both ways: neither sees the other's listings or name.
CREATE TABLE blocks (
    blocker uuid NOT NULL,
    blocked uuid NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (blocker, blocked),
    CHECK (blocker <> blocked)
);
CREATE INDEX blocks_blocked ON blocks (blocked);
