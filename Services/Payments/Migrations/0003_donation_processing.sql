-- A donation's way through the payment processor. It is recorded before the processor is called;
-- the PaymentIntent's id is stored before it is confirmed, so a crash between the processor's
-- success and our commit is recovered from it (the job donations.sweep); the processor's idempotency
-- keys are made from the donation's id, so a repeat never charges twice. The client's
-- Idempotency-Key names the donation per donor: a repeat with it resumes the same donation.
ALTER TABLE donations
    ADD COLUMN status text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'requires_action', 'succeeded', 'failed')),
    ADD COLUMN processor text NOT NULL DEFAULT 'sandbox',
    ADD COLUMN payment_method text,
    ADD COLUMN intent_id text UNIQUE,
    ADD COLUMN client_key text,
    ADD COLUMN fingerprint text,
    -- The safe reason shown to the donor; the processor's own code goes to the log.
    ADD COLUMN reason text CHECK (reason IN ('card_declined', 'insufficient_funds', 'expired', 'try_again')),
    ADD COLUMN updated_at timestamptz,
    -- The donor's list, newest first.
    ADD COLUMN seq bigserial,
    -- One request, read or sweep at a time takes a donation to the processor: it holds the donation
    -- until then (or until it settles it).
    ADD COLUMN held_until timestamptz;
UPDATE donations SET status = 'succeeded' WHERE succeeded_at IS NOT NULL;
CREATE UNIQUE INDEX donations_client_key ON donations (donor_id, client_key) WHERE client_key IS NOT NULL;
CREATE INDEX donations_unsettled ON donations (updated_at) WHERE status IN ('processing', 'requires_action');
