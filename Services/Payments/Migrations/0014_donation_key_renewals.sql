-- Stripe keeps a 5xx as the result of its Idempotency-Key and answers it again to every repeat under
-- that key for 24 hours ("including 500 errors", docs.stripe.com/api/idempotent_requests): a confirm
-- answered 500 and tried again under its key never finishes. A donation's create and confirm go under
-- new keys after each 5xx, which is safe for both: a PaymentIntent made and never confirmed charges
-- nobody (only the stored one is confirmed), and one succeeds once whichever key confirms it. How many
-- times its keys were renewed; they carry the count.
ALTER TABLE donations ADD COLUMN key_renewals integer NOT NULL DEFAULT 0 CHECK (key_renewals >= 0);
