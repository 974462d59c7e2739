-- Reconciliation reads the donations of its window by their creation time.
CREATE INDEX donations_created ON donations (created_at);
