-- The first universities. Sources: each university's own website for its name, main campus and the
-- domain of its student and staff email.
INSERT INTO universities (id, name, campus, domains) VALUES
    ('tcd', 'Trinity College Dublin', 'College Green, Dublin', '{tcd.ie}'),
    ('ucd', 'University College Dublin', 'Belfield, Dublin', '{ucd.ie,ucdconnect.ie}'),
    ('universityofgalway', 'University of Galway', 'Galway', '{universityofgalway.ie,nuigalway.ie}'),
    ('bu', 'Boston University', 'Charles River, Boston', '{bu.edu}'),
    ('northeastern', 'Northeastern University', 'Boston', '{northeastern.edu,husky.neu.edu}');
