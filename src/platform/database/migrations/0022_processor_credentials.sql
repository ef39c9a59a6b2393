-- Issue 30: a processor's credentials at its acquirer (Authorize.Net: API login id and transaction
-- key), sealed by the vault as one secret: never in a plain column. One row per processor that
-- needs them; a simulator processor has none. The environment picks the endpoint.
CREATE TABLE processor_credentials (
  processor_id uuid PRIMARY KEY REFERENCES processors (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  secret_ciphertext text NOT NULL,
  secret_key_id text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- The simulator's record of what it did, by our reference (the PaymentGuid, a refund's or void's
-- id), which its look-ups read: every server process on the database sees it, after a restart
-- too. Written in a statement of its own, before the simulator answers.
CREATE TABLE simulator_ledger (
  reference text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('sale', 'refund', 'void')),
  approved boolean NOT NULL,
  response_code text NOT NULL,
  transaction_id text NOT NULL,
  auth_code text,
  amount_cents bigint NOT NULL,
  original_transaction_id text,
  recorded_at timestamptz NOT NULL
);

-- A sale's void, by the sale's transaction id; sales (most rows) carry none and are not indexed.
CREATE INDEX simulator_ledger_original ON simulator_ledger (original_transaction_id) WHERE original_transaction_id IS NOT NULL;
