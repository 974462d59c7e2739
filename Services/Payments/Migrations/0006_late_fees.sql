-- A charge's fee may not be known when it succeeds (its balance transaction comes later): the
-- donation is posted with no fee and fee_known false, and reconciliation posts the fee as a transfer
-- of its own ('fee': the processor holds less, the fees account more) once the processor says it.
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_kind_check;
ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_kind_check CHECK (kind IN ('donation', 'refund', 'dispute', 'fee'));
ALTER TABLE donations ADD COLUMN fee_known boolean NOT NULL DEFAULT true;
CREATE INDEX donations_fee_unknown ON donations (succeeded_at) WHERE NOT fee_known;
