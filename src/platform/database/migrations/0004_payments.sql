-- Card, ACH and wallet payments, one row per attempt, and their transaction lines with the fee
-- breakdown of each. Refunds, voids and settlement add their own tables and columns.
CREATE TABLE payments (
  id uuid PRIMARY KEY,
  payment_id integer GENERATED ALWAYS AS IDENTITY UNIQUE,
  partner_id uuid NOT NULL REFERENCES partners(id),
  processor_id uuid NOT NULL REFERENCES processors(id),
  organization_id uuid REFERENCES organizations(id),
  -- A CharityId of the directory (no foreign key: the directory is re-imported from the registries).
  charity_id uuid,
  integration_source_id uuid REFERENCES integration_sources(id),
  -- Whether the integration source checked duplicates when this payment was made.
  duplicate_checked boolean NOT NULL,
  method text NOT NULL CHECK (method IN ('card', 'ach', 'wallet')),
  payment_method_type_id smallint,
  tran_id text,
  -- The gateway transaction id (PaymentExternalId of refunds and voids).
  transaction_id text,
  auth_code text,
  response_code text NOT NULL,
  message text,
  processor_message text,
  successful boolean NOT NULL,
  payment_result smallint NOT NULL,
  process_status smallint NOT NULL,
  total_amount_cents bigint NOT NULL,
  surcharge_cents bigint,
  shipping_fee_cents bigint,
  taxable_benefit_cents bigint,
  currency text,
  first_name text,
  last_name text,
  email text,
  zip text,
  street text,
  city text,
  state text,
  country text,
  ip_address text,
  name_on_account text,
  card_last4 text,
  card_type text,
  exp_month text,
  exp_year text,
  check_account_last4 text,
  check_routing_number text,
  check_number text,
  check_account_type_id smallint,
  check_type_id smallint,
  avs_street_status text,
  avs_zip_status text,
  avs_response text,
  cvv_response text,
  is_surcharge_eligible boolean,
  token_id uuid REFERENCES payment_tokens(id),
  external_card_token text,
  external_check_token text,
  external_customer_id text,
  external_constituent_id text,
  billing_descriptor text,
  external_event_id text,
  external_event_guid text,
  external_event_name text,
  epf_session_id text,
  mkey text,
  gw_shield jsonb,
  created_at timestamptz NOT NULL,
  processed_at timestamptz
);
-- Duplicate checking: one live payment per integration source and TranId. Failed attempts
-- (PaymentResult 4) do not count, so a declined TranId may be tried again.
CREATE UNIQUE INDEX payments_tran_id_once ON payments (integration_source_id, tran_id)
  WHERE duplicate_checked AND tran_id IS NOT NULL AND payment_result <> 4;
CREATE UNIQUE INDEX payments_transaction_id ON payments (transaction_id) WHERE transaction_id IS NOT NULL;
CREATE INDEX payments_partner_created ON payments (partner_id, created_at);

CREATE TABLE payment_lines (
  payment_id uuid NOT NULL REFERENCES payments(id),
  line_no smallint NOT NULL,
  transaction_source_group_id smallint NOT NULL,
  external_line_id text,
  amount_cents bigint NOT NULL,
  tip_cents bigint NOT NULL,
  tax_cents bigint NOT NULL,
  pay_fee boolean NOT NULL,
  commission_rate_override text,
  card_processing_fee_override text,
  payment_amount_cents bigint NOT NULL,
  total_fees_cents bigint NOT NULL,
  -- The whole fee breakdown of the line as quoted (cents and rates), for the response and reports.
  fees jsonb NOT NULL,
  PRIMARY KEY (payment_id, line_no)
);
