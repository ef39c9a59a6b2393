-- Recurring billing (issue 6): profiles, and the link from each payment attempt to the profile
-- and bill date it was made for. See docs/decisions.md, "Recurring billing".
CREATE TABLE recurring_profiles (
  -- RecurringProfileGuid
  id uuid PRIMARY KEY,
  -- RecurringProfileId
  profile_id integer GENERATED ALWAYS AS IDENTITY UNIQUE,
  partner_id uuid NOT NULL REFERENCES partners(id),
  token_id uuid NOT NULL REFERENCES payment_tokens(id),
  -- The processor that charges it: the one named at creation, else the partner's default then.
  processor_id uuid NOT NULL REFERENCES processors(id),
  integration_source_id uuid REFERENCES integration_sources(id),
  organization_id uuid REFERENCES organizations(id),
  -- A CharityId of the directory (no foreign key: the directory is re-imported).
  charity_id uuid,
  status text NOT NULL CHECK (status IN ('active', 'suspended', 'completed', 'cancelled')),
  billing_frequency text NOT NULL,
  -- The day of the month that month steps keep (clamped to shorter months).
  anchor_day smallint NOT NULL CHECK (anchor_day BETWEEN 1 AND 31),
  start_date date NOT NULL,
  end_date date,
  -- The bill date being charged (retries keep it; an approval moves it on by the schedule).
  next_bill_date date NOT NULL,
  -- When the worker next tries: the bill date, or a retry day after it.
  next_attempt_on date NOT NULL,
  failed_attempts smallint NOT NULL DEFAULT 0,
  amount_cents bigint NOT NULL,
  pre_fee_amount_cents bigint,
  pay_fee boolean NOT NULL,
  transaction_source_group_id smallint NOT NULL,
  commission_rate_override text,
  card_processing_fee_override text,
  surcharge_cents bigint,
  -- The fee rates of the contract when the profile took its fees (UseOriginalFees).
  fee_commission_rate text,
  fee_card_rate text,
  fees_taken_at timestamptz NOT NULL,
  external_event_id text,
  external_event_guid text,
  external_event_name text,
  -- Payer details the charges carry (pay pages pass them; the API's profile has none).
  email text,
  first_name text,
  last_name text,
  street text,
  city text,
  state text,
  zip text,
  country text,
  currency text,
  external_constituent_id text,
  -- The last charge attempt.
  last_payment_id uuid,
  last_attempt_at timestamptz,
  last_failure text,
  -- A worker's lease: who holds the profile, since when and until when. A lease left behind
  -- (a worker that crashed) expires, and the next worker reconciles before charging.
  lease_owner text,
  lease_claimed_at timestamptz,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  suspended_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz
);
-- What a billing run looks for, in the order it takes them (an index scan that stops at the batch size).
CREATE INDEX recurring_profiles_due ON recurring_profiles (next_attempt_on, id) WHERE status = 'active';
CREATE INDEX recurring_profiles_partner ON recurring_profiles (partner_id, created_at);

ALTER TABLE payments
  ADD COLUMN recurring_profile_id uuid REFERENCES recurring_profiles(id),
  ADD COLUMN bill_date date;
-- Exactly once: at most one live (pending or processing) or successful payment per profile and
-- bill date, whichever worker or process makes it. Failed attempts (PaymentResult 4) do not
-- count, so a declined bill date can be retried.
CREATE UNIQUE INDEX payments_recurring_bill_once ON payments (recurring_profile_id, bill_date)
  WHERE recurring_profile_id IS NOT NULL AND payment_result <> 4;
CREATE INDEX payments_recurring_profile ON payments (recurring_profile_id, bill_date)
  WHERE recurring_profile_id IS NOT NULL;
