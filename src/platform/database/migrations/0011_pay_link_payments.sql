-- The pay link a payment was made through (its page's submission). A link takes no other
-- payment while one made through it may have charged the payer or did: its outcome unknown
-- (Pending or Processing: the process stopped between the processor call and the record; `payments
-- pending resolve` settles it and completes the link on a charge) or Successful on a link whose
-- completion could not be recorded. Only such payments are in the index.
ALTER TABLE payments ADD COLUMN pay_link_id text;
CREATE INDEX payments_pay_link_charged ON payments (pay_link_id) WHERE pay_link_id IS NOT NULL AND payment_result IN (1, 2, 3);
