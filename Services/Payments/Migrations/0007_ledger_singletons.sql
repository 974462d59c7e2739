-- The processor's and the fees' accounts exist from the start, so posting only reads their ids
-- (once per process).
INSERT INTO ledger_accounts (id, kind, unit, created_at)
VALUES (gen_random_uuid(), 'processor', 'EUR', now()), (gen_random_uuid(), 'fees', 'EUR', now())
ON CONFLICT DO NOTHING;
