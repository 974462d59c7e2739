-- The accounts' data keys move to the kit's account_keys (Seal, KeyRing): the same boxes, which the
-- key ring opens without a header and the rotation job seals again with one.
INSERT INTO account_keys (account_id, wrapped, created_at) SELECT account_id, wrapped, created_at FROM data_keys
ON CONFLICT (account_id) DO NOTHING;
DROP TABLE data_keys;
