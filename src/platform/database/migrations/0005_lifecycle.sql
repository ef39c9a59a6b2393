-- Payment lifecycle: settlement batches, and refunds and voids as records of their own.

-- One row per closed batch. `cutoff_at` is the moment the batch settles up to (a scheduled
-- cut-off, or an operator's --as-of); its uniqueness makes closing a batch for one moment
-- idempotent across processes: a second run for the same moment finds the first batch.
CREATE TABLE settlement_batches (
  id uuid PRIMARY KEY,
  batch_no integer GENERATED ALWAYS AS IDENTITY UNIQUE,
  cutoff_at timestamptz NOT NULL UNIQUE,
  trigger text NOT NULL CHECK (trigger IN ('cutoff', 'operator')),
  closed_at timestamptz NOT NULL,
  settled_count integer NOT NULL,
  ach_refunds_completed integer NOT NULL,
  -- Per currency: { "USD": { "settledCount", "settledCents", "refundedCount", "refundedCents" } }.
  totals jsonb NOT NULL
);

ALTER TABLE payments
  ADD COLUMN settlement_batch_id uuid REFERENCES settlement_batches(id),
  ADD COLUMN settled_at timestamptz,
  -- The refund or void in flight (between the claim and the processor's answer). A payment with
  -- one neither settles nor takes another refund or void.
  ADD COLUMN pending_adjustment_id uuid;

-- What a settlement run looks for: authorized payments (2) by authorization time.
CREATE INDEX payments_authorized ON payments (processed_at) WHERE process_status = 2;
CREATE INDEX payments_settlement_batch ON payments (settlement_batch_id) WHERE settlement_batch_id IS NOT NULL;

-- Every refund or void request that found its payment: accepted, declined by the processor,
-- failed, or refused by the rules. The payment row keeps its own history columns untouched
-- except for its current state; the state before and after each request is recorded here.
CREATE TABLE payment_adjustments (
  id uuid PRIMARY KEY,
  payment_id uuid NOT NULL REFERENCES payments(id),
  partner_id uuid NOT NULL REFERENCES partners(id),
  kind text NOT NULL CHECK (kind IN ('void', 'refund')),
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'declined', 'failed', 'refused')),
  reason text NOT NULL,
  -- Who asked: the surface and the request id (X-Request-Id) that carried it.
  source text NOT NULL,
  request_id text,
  requested_at timestamptz NOT NULL,
  processed_at timestamptz,
  -- The amount released (void) or returned to the payer (refund): the whole payment.
  amount_cents bigint NOT NULL,
  currency text,
  -- The processor's id of the void or refund.
  transaction_id text,
  response_code text,
  message text,
  processor_message text,
  payment_result_before smallint NOT NULL,
  process_status_before smallint NOT NULL,
  payment_result_after smallint,
  process_status_after smallint,
  -- What happens to each fee part (docs/fees.md, "Refunds and voids"), in cents.
  fee_treatment jsonb,
  -- An ACH refund completes (money moved) at the settlement run after it; a card refund at once.
  completed_at timestamptz,
  settlement_batch_id uuid REFERENCES settlement_batches(id)
);
-- A payment has at most one refund or void that is in flight or went through: a void ends it,
-- and a refund is of the full amount.
CREATE UNIQUE INDEX payment_adjustments_one_effective ON payment_adjustments (payment_id)
  WHERE status IN ('pending', 'approved');
CREATE INDEX payment_adjustments_payment ON payment_adjustments (payment_id, requested_at);
CREATE INDEX payment_adjustments_ach_due ON payment_adjustments (processed_at)
  WHERE kind = 'refund' AND status = 'approved' AND completed_at IS NULL;
ALTER TABLE payments ADD CONSTRAINT payments_pending_adjustment_fk
  FOREIGN KEY (pending_adjustment_id) REFERENCES payment_adjustments(id);
