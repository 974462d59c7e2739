-- A settlement paid in the app: payments charged the payer's card and told us through its outbox
-- (household.settlements.paid.v1). Its payment's id makes a repeated delivery the same settlement.
ALTER TABLE settlements ADD COLUMN payment_id uuid UNIQUE;
