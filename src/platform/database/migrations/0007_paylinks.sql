-- Pay links (issue 7): the link a partner creates, and the single-use result tokens the hosted
-- page hands the payer's browser on its way back to the partner's RedirectUrl.
CREATE TABLE pay_links (
  -- PayLinkId: 144 random bits, base64url; the last segment of the PayLinkUrl.
  id text PRIMARY KEY,
  partner_id uuid NOT NULL REFERENCES partners(id),
  integration_source_id uuid REFERENCES integration_sources(id),
  processor_id uuid REFERENCES processors(id),
  -- 1 payment (the default), 3 tokenize a card without paying, 4 manage saved cards.
  workflow_type smallint NOT NULL CHECK (workflow_type IN (1, 3, 4)),
  status text NOT NULL CHECK (status IN ('active', 'completed', 'cancelled')),
  redirect_url text NOT NULL,
  tran_id text,
  -- PaymentLines as validated: [{ amountCents, type, recurring, payFee, externalLineId }].
  lines jsonb NOT NULL,
  -- Everything the page shows or passes on: prefill, texts, language, sanitized theme, tokens.
  settings jsonb NOT NULL,
  -- A submission holds the link until this time, so two submissions never both pay.
  lease_until timestamptz,
  -- The one successful payment (workflow 1) or stored card (workflow 3) of the link.
  payment_id uuid REFERENCES payments(id),
  token_id uuid REFERENCES payment_tokens(id),
  -- The recurring profile a recurring line created after the payment.
  recurring_profile_id uuid REFERENCES recurring_profiles(id),
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  cancelled_at timestamptz
);
CREATE INDEX pay_links_partner_created ON pay_links (partner_id, created_at);

-- responseToken of a redirect: SHA-256 only; single use, 30 minutes.
CREATE TABLE pay_link_results (
  token_hash text PRIMARY KEY,
  pay_link_id text NOT NULL REFERENCES pay_links(id),
  partner_id uuid NOT NULL REFERENCES partners(id),
  payment_id uuid REFERENCES payments(id),
  token_id uuid REFERENCES payment_tokens(id),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX pay_link_results_expires ON pay_link_results (expires_at);
