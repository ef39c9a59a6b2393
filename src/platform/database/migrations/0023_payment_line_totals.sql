-- The totals of a payment's lines, kept on the payment row (written with it, in the same
-- statement as its lines, which never change): reports and exports read them with the payment
-- instead of summing its lines (and their fee breakdowns) for every row, which was two thirds of
-- an export's time.
ALTER TABLE payments
  ADD COLUMN lines_amount_cents bigint,
  ADD COLUMN lines_tip_cents bigint,
  ADD COLUMN lines_tax_cents bigint,
  ADD COLUMN lines_fees_cents bigint,
  ADD COLUMN lines_commission_cents bigint,
  ADD COLUMN lines_partner_commission_cents bigint,
  ADD COLUMN lines_platform_commission_cents bigint;

UPDATE payments p
   SET lines_amount_cents = l.amount_cents,
       lines_tip_cents = l.tip_cents,
       lines_tax_cents = l.tax_cents,
       lines_fees_cents = l.fees_cents,
       lines_commission_cents = l.commission_cents,
       lines_partner_commission_cents = l.partner_commission_cents,
       lines_platform_commission_cents = l.platform_commission_cents
  FROM (SELECT payment_id,
               sum(amount_cents) AS amount_cents,
               sum(tip_cents) AS tip_cents,
               sum(tax_cents) AS tax_cents,
               sum(total_fees_cents) AS fees_cents,
               coalesce(sum((fees->>'totalCommissionAmountCents')::bigint), 0) AS commission_cents,
               coalesce(sum((fees->>'partnerCommissionAmountCents')::bigint), 0) AS partner_commission_cents,
               coalesce(sum((fees->>'platformCommissionAmountCents')::bigint), 0) AS platform_commission_cents
          FROM payment_lines GROUP BY payment_id) l
 WHERE l.payment_id = p.id;

-- A payment is written with its lines; one without any (none is made so) totals nothing.
UPDATE payments
   SET lines_amount_cents = 0, lines_tip_cents = 0, lines_tax_cents = 0, lines_fees_cents = 0,
       lines_commission_cents = 0, lines_partner_commission_cents = 0, lines_platform_commission_cents = 0
 WHERE lines_amount_cents IS NULL;

ALTER TABLE payments
  ALTER COLUMN lines_amount_cents SET NOT NULL,
  ALTER COLUMN lines_tip_cents SET NOT NULL,
  ALTER COLUMN lines_tax_cents SET NOT NULL,
  ALTER COLUMN lines_fees_cents SET NOT NULL,
  ALTER COLUMN lines_commission_cents SET NOT NULL,
  ALTER COLUMN lines_partner_commission_cents SET NOT NULL,
  ALTER COLUMN lines_platform_commission_cents SET NOT NULL;
