-- Stripe's events processed, by their id: one seen again (Stripe retries for up to three days, and
-- may send an event twice) is answered with no effect. Kept 30 days (job webhook-events.prune).
CREATE TABLE webhook_events (
    id text PRIMARY KEY,
    type text NOT NULL,
    received_at timestamptz NOT NULL
);
CREATE INDEX webhook_events_received ON webhook_events (received_at);
