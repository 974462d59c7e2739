-- Who chats, under which username (the token's, refreshed whenever they act): traders of the
-- marketplace and users of Nebula alike. A private chat is opened with a username known here.
CREATE TABLE chatters (
    account_id uuid PRIMARY KEY,
    username text NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX chatters_username ON chatters (lower(username));

-- Every message and every change of a conversation's timer takes the next number: the chat tab's
-- order (the latest activity first) and its pages.
CREATE SEQUENCE conversation_activity_seq;

-- A conversation of two: about a listing (the buyer opened it, the seller answers; marketplace app)
-- or private (Nebula). Messages are sealed under the conversation's own data key (the kit's
-- account_keys, keyed by the conversation's id, wrapped by MARKETPLACE_CHAT_KEY).
CREATE TABLE conversations (
    id uuid PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('listing', 'private')),
    listing_id uuid REFERENCES listings (id) ON DELETE SET NULL,
    university_id text REFERENCES networks (university_id),
    -- The disappearing-messages timer in force, in seconds (0: off).
    timer_seconds integer NOT NULL DEFAULT 0,
    last_seq bigint NOT NULL DEFAULT 0,
    activity bigint NOT NULL DEFAULT nextval('conversation_activity_seq'),
    created_at timestamptz NOT NULL,
    CHECK ((kind = 'listing') = (university_id IS NOT NULL))
);

-- The two sides: 0 opened it (the buyer), 1 was asked (the seller). An erased account leaves its side
-- with no account; its messages stay, from "a deleted user".
CREATE TABLE conversation_members (
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    side smallint NOT NULL CHECK (side IN (0, 1)),
    account_id uuid,
    -- Read receipts: the side read the other's messages up to this number.
    read_seq bigint NOT NULL DEFAULT 0,
    -- Deleted for oneself: messages up to this number are gone for this side.
    cleared_seq bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (conversation_id, side)
);
CREATE INDEX conversation_members_account ON conversation_members (account_id, conversation_id);
-- One conversation per buyer and listing; one private conversation per pair (the pair's key,
-- the smaller account id first). The key is taken first, so the reference is checked at commit.
CREATE TABLE conversation_keys (
    key text PRIMARY KEY,
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

-- A message: its kind and its body sealed together (a JSON object under the conversation's key,
-- bound to conversation and number). Disappearing: the sender's copy lasts the timer from sending,
-- the recipient's the timer from first reading and never past sending + timer + 7 days; reads leave a
-- copy out from its side's expiry, and the job messages.purge deletes the row once both are past.
CREATE TABLE messages (
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq bigint NOT NULL,
    id uuid NOT NULL UNIQUE,
    sender_side smallint NOT NULL CHECK (sender_side IN (0, 1)),
    kind text NOT NULL CHECK (kind IN ('text', 'meeting', 'location', 'timer')),
    body bytea,
    -- A listing conversation's message that looks like it carries a phone number or an email.
    flagged boolean NOT NULL DEFAULT false,
    timer_seconds integer NOT NULL DEFAULT 0,
    sent_at timestamptz NOT NULL,
    read_at timestamptz,
    deleted_at timestamptz,
    sender_expires_at timestamptz,
    reader_expires_at timestamptz,
    -- When the row goes: the later of the two expiries.
    purge_at timestamptz,
    PRIMARY KEY (conversation_id, seq),
    CHECK ((timer_seconds = 0) = (purge_at IS NULL))
);
CREATE INDEX messages_purge ON messages (purge_at) WHERE purge_at IS NOT NULL;
