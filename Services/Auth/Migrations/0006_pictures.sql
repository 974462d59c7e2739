-- Profile pictures: checked PNG, JPEG or WebP files of at most AUTH_PICTURE_MAX_BYTES, one per account.
CREATE TABLE pictures (
    account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    media_type text NOT NULL,
    content bytea NOT NULL,
    width integer NOT NULL,
    height integer NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
