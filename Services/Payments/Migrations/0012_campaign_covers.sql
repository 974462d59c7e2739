-- A campaign's cover picture (the seed's campaign image), one of the kit's media objects: replaced
-- by a new one, deleted when its owner closes the campaign, and with its uploader's erasure.
ALTER TABLE campaigns ADD COLUMN cover_media uuid REFERENCES media_objects (id) ON DELETE SET NULL;
