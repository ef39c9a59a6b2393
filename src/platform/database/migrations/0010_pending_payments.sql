-- Payments whose outcome is unknown (Pending or Processing: the process stopped between the
-- processor call and the record), for `payments pending list`. Only such rows are in the index,
-- so it stays a handful of entries however many payments there are.
CREATE INDEX payments_pending ON payments (created_at) WHERE payment_result IN (1, 2);
