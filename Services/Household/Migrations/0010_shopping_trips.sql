-- Finished shopping trips (the seed's past aggregate lists): the shopping list as it was when a member
-- finished a trip. seq orders them, the last finished first, and is the page key. Items are copies,
-- in the shopping list's order: a later change or deletion of the item leaves the trip as it was.
-- They name members by member id; an erased account's wishes (what it wanted) go with it, as its own
-- lists do.
CREATE TABLE shopping_trips (
    id uuid PRIMARY KEY,
    household_id uuid NOT NULL REFERENCES households (id) ON DELETE CASCADE,
    seq bigserial NOT NULL,
    finished_by uuid NOT NULL REFERENCES members (id),
    finished_at timestamptz NOT NULL
);
CREATE INDEX shopping_trips_history ON shopping_trips (household_id, seq);

CREATE TABLE shopping_trip_items (
    trip_id uuid NOT NULL REFERENCES shopping_trips (id) ON DELETE CASCADE,
    place integer NOT NULL,
    item_id uuid NOT NULL,
    kind text NOT NULL CHECK (kind IN ('personal', 'communal')),
    wanted_by uuid REFERENCES members (id),
    name text NOT NULL,
    quantity integer,
    unit text,
    note text,
    category text,
    added_by uuid NOT NULL REFERENCES members (id),
    bought_by uuid REFERENCES members (id),
    bought_at timestamptz,
    price_minor bigint,
    price_currency text,
    PRIMARY KEY (trip_id, place),
    CHECK ((kind = 'personal') = (wanted_by IS NOT NULL)),
    CHECK ((bought_at IS NULL) = (bought_by IS NULL)),
    CHECK ((price_minor IS NULL) = (price_currency IS NULL))
);
CREATE INDEX shopping_trip_items_wanted_by ON shopping_trip_items (wanted_by) WHERE wanted_by IS NOT NULL;

-- When a finished trip (what was bought) or a member clearing the shopping list took the item off the
-- shopping list. It stays on its own list; any change of it puts it back.
ALTER TABLE grocery_items ADD COLUMN cleared_at timestamptz;
