CREATE TABLE partners (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('non-profit', 'for-profit')),
  client_secret_hash text NOT NULL,
  api_key_hash text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  created_at timestamptz NOT NULL,
  secret_rotated_at timestamptz
);

CREATE TABLE integration_sources (
  id uuid PRIMARY KEY,
  partner_id uuid NOT NULL REFERENCES partners(id),
  name text NOT NULL,
  duplicate_check boolean NOT NULL DEFAULT true,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
);
CREATE INDEX integration_sources_partner ON integration_sources (partner_id);
CREATE UNIQUE INDEX integration_sources_one_default ON integration_sources (partner_id) WHERE is_default;

CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  partner_id uuid NOT NULL REFERENCES partners(id),
  name text NOT NULL,
  charity_id uuid,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
);
CREATE INDEX organizations_partner ON organizations (partner_id);
CREATE UNIQUE INDEX organizations_one_default ON organizations (partner_id) WHERE is_default;

CREATE TABLE processors (
  id uuid PRIMARY KEY,
  partner_id uuid NOT NULL REFERENCES partners(id),
  name text NOT NULL,
  adapter text NOT NULL DEFAULT 'simulator',
  mkey text NOT NULL,
  payment_method_types smallint[] NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  UNIQUE (partner_id, mkey)
);
CREATE UNIQUE INDEX processors_one_default ON processors (partner_id) WHERE is_default;

CREATE TABLE fee_schedules (
  partner_id uuid NOT NULL REFERENCES partners(id),
  group_id smallint NOT NULL CHECK (group_id BETWEEN 1 AND 12),
  card_fee_rate numeric NOT NULL CHECK (card_fee_rate >= 0 AND card_fee_rate < 100),
  platform_commission_rate numeric NOT NULL CHECK (platform_commission_rate >= 0),
  max_commission_rate numeric NOT NULL CHECK (max_commission_rate < 100),
  per_trans_fee_cents bigint NOT NULL DEFAULT 0 CHECK (per_trans_fee_cents >= 0),
  card_type_fees jsonb NOT NULL DEFAULT '{}'::jsonb,
  ach_fee_rate numeric NOT NULL DEFAULT 0 CHECK (ach_fee_rate >= 0 AND ach_fee_rate < 100),
  ach_fee_cap_cents bigint CHECK (ach_fee_cap_cents >= 0),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (partner_id, group_id),
  CHECK (platform_commission_rate <= max_commission_rate)
);

CREATE TABLE access_tokens (
  token_hash text PRIMARY KEY,
  partner_id uuid NOT NULL REFERENCES partners(id),
  issued_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX access_tokens_expires ON access_tokens (expires_at);

CREATE TABLE app_settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL
);
