-- Profile pictures move onto the kit's media store: a picture names a kept image (media_objects),
-- re-encoded without metadata and with a thumbnail. The files checked before (by their header only,
-- kept as uploaded, metadata and all) wait in legacy_pictures until the pictures.legacy-move job
-- re-encodes them.
ALTER TABLE pictures RENAME TO legacy_pictures;
ALTER TABLE legacy_pictures RENAME CONSTRAINT pictures_pkey TO legacy_pictures_pkey;
ALTER TABLE legacy_pictures RENAME CONSTRAINT pictures_account_id_fkey TO legacy_pictures_account_id_fkey;
CREATE TABLE pictures (
    account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    media_id uuid NOT NULL UNIQUE REFERENCES media_objects (id) ON DELETE CASCADE,
    updated_at timestamptz NOT NULL
);
