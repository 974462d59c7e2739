-- Grocery lists: each member's personal list and the household's communal one. One of each is
-- current; finishing a list moves it to the history (finished_at set) and the next read starts a new
-- one. Items name members by member id, so who added or bought what survives leaving and erasure.
CREATE TABLE grocery_lists (
    id uuid PRIMARY KEY,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    kind text NOT NULL CHECK (kind IN ('personal', 'communal')),
    owner_member uuid REFERENCES members (id),
    -- Orders the history and is its page key.
    seq bigserial NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    finished_at timestamptz,
    finished_by uuid REFERENCES members (id),
    CHECK ((kind = 'personal') = (owner_member IS NOT NULL))
);
-- One current list of each kind (per member for personal ones).
CREATE UNIQUE INDEX grocery_lists_current_personal ON grocery_lists (household_id, owner_member) WHERE finished_at IS NULL AND kind = 'personal';
CREATE UNIQUE INDEX grocery_lists_current_communal ON grocery_lists (household_id) WHERE finished_at IS NULL AND kind = 'communal';
CREATE INDEX grocery_lists_history ON grocery_lists (household_id, kind, seq) WHERE finished_at IS NOT NULL;

CREATE SEQUENCE grocery_purchase_seq;

CREATE TABLE grocery_items (
    id uuid PRIMARY KEY,
    list_id uuid NOT NULL REFERENCES grocery_lists (id) ON DELETE CASCADE,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    seq bigserial NOT NULL,
    name text NOT NULL,
    quantity integer,
    unit text,
    note text,
    category text,
    private boolean NOT NULL DEFAULT false,
    added_by uuid NOT NULL REFERENCES members (id),
    added_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    version integer NOT NULL DEFAULT 1,
    bought_by uuid REFERENCES members (id),
    bought_at timestamptz,
    -- Orders the purchase history and is its page key: set from grocery_purchase_seq when bought.
    bought_seq bigint,
    price_minor bigint,
    price_currency text,
    CHECK ((bought_at IS NULL) = (bought_by IS NULL) AND (bought_at IS NULL) = (bought_seq IS NULL)),
    CHECK ((price_minor IS NULL) = (price_currency IS NULL) AND (price_minor IS NULL OR bought_at IS NOT NULL))
);
CREATE INDEX grocery_items_list ON grocery_items (list_id, seq);
CREATE INDEX grocery_items_bought ON grocery_items (household_id, bought_seq) WHERE bought_seq IS NOT NULL;
