-- Devices: one row per push token (a token registered by another account moves to it). The
-- session it was registered in: ending the session removes the device.
CREATE TABLE devices (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL,
    session_id uuid,
    platform text NOT NULL,
    app text NOT NULL,
    token text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    locale text,
    time_zone text,
    app_version text,
    registered_at timestamptz NOT NULL DEFAULT now(),
    last_pushed_at timestamptz,
    UNIQUE (platform, token)
);
CREATE INDEX devices_account ON devices (account_id, app);
CREATE INDEX devices_session ON devices (session_id);

-- A push as a service asked for it; the same dedupe key from the same service is the same push.
CREATE TABLE pushes (
    id uuid PRIMARY KEY,
    source text NOT NULL,
    dedupe_key text,
    content jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    UNIQUE (source, dedupe_key)
);

-- The inbox: one item per (push, recipient), kept whether or not a device was reached.
CREATE TABLE notifications (
    id uuid PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    push_id uuid NOT NULL REFERENCES pushes (id) ON DELETE CASCADE,
    account_id uuid NOT NULL,
    app text NOT NULL,
    event_type text NOT NULL,
    category text NOT NULL,
    alert jsonb,
    data jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    read_at timestamptz,
    UNIQUE (push_id, account_id)
);
CREATE INDEX notifications_inbox ON notifications (account_id, app, seq DESC);
CREATE INDEX notifications_unread ON notifications (account_id, app, category) WHERE read_at IS NULL;

-- One delivery per (push, device); its id is the apns-id of every attempt. Consumed by the
-- delivery loops of every instance (LeasedQueue).
CREATE TABLE deliveries (
    id uuid PRIMARY KEY,
    push_id uuid NOT NULL REFERENCES pushes (id) ON DELETE CASCADE,
    notification_id uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    device_id uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    app text NOT NULL,
    status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    reason text,
    UNIQUE (push_id, device_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'queued';
CREATE INDEX deliveries_finished ON deliveries (finished_at) WHERE status <> 'queued';

-- An app whose APNs setup is wrong (a bad key, topic or team): its deliveries wait until then.
CREATE TABLE app_holds (
    app text PRIMARY KEY,
    until timestamptz NOT NULL,
    reason text NOT NULL
);

-- Preferences: event types pushed to the inbox only, and quiet hours.
CREATE TABLE mutes (
    account_id uuid NOT NULL,
    app text NOT NULL,
    event_type text NOT NULL,
    PRIMARY KEY (account_id, app, event_type)
);
CREATE TABLE quiet_hours (
    account_id uuid PRIMARY KEY,
    start_minute integer NOT NULL CHECK (start_minute BETWEEN 0 AND 1439),
    end_minute integer NOT NULL CHECK (end_minute BETWEEN 0 AND 1439),
    time_zone text
);

-- Schedules: a push to one user at local times in a time zone; (source, key) replaces.
CREATE TABLE schedules (
    id uuid PRIMARY KEY,
    source text NOT NULL,
    key text NOT NULL,
    account_id uuid NOT NULL,
    request jsonb NOT NULL,
    time_zone text NOT NULL,
    fired integer NOT NULL DEFAULT 0,
    next_fire_at timestamptz NOT NULL,
    UNIQUE (source, key)
);
CREATE INDEX schedules_due ON schedules (next_fire_at);
CREATE INDEX schedules_account ON schedules (account_id);
