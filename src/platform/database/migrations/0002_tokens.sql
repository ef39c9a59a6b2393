-- Reusable payment tokens (cards and bank accounts) of every surface: POST /api/payment with
-- Tokenize, the SOAP gateway's GetToken/GetCheckToken and the pay page. The card or account
-- number is only ever stored encrypted by the vault (AES-256-GCM, key id recorded per row).
CREATE SEQUENCE gateway_key_seq START WITH 1000001;
CREATE SEQUENCE customer_key_seq START WITH 5000001;

CREATE TABLE payment_tokens (
  id uuid PRIMARY KEY,
  partner_id uuid NOT NULL REFERENCES partners(id),
  kind text NOT NULL CHECK (kind IN ('card', 'bank')),
  -- CcInfoKey for a card, CheckInfoKey for a bank account: a numeric gateway key.
  gateway_key bigint NOT NULL UNIQUE DEFAULT nextval('gateway_key_seq'),
  -- CustomerKey (ExternalCustomerId): the gateway customer record the token belongs to.
  customer_key text NOT NULL,
  -- CustomerID of the gateway: <vendor>-<FirstLast>-<yyyyMMddHHmmss>, when made by the gateway.
  customer_id text,
  external_constituent_id text,
  -- The vault's AES-256-GCM ciphertext of the number (v1:<key id>:<nonce>:<ciphertext+tag>) and its
  -- key id, for rotation. Both are emptied when the token is deleted: nothing is left to decrypt.
  secret_ciphertext text NOT NULL,
  secret_key_id text NOT NULL,
  last4 text NOT NULL,
  -- Cards: brand as PaymentMethodTypeId (1 AMEX ... 6 JCB) and expiry.
  payment_method_type_id smallint NOT NULL,
  exp_month text,
  exp_year text,
  -- Bank accounts: routing number (public bank identifier), account type 1 checking / 2 savings,
  -- check type 1 personal / 2 corporate / 3 government, country of the account.
  routing_number text,
  account_type smallint,
  check_type smallint,
  bank_country text,
  -- CkNameOnAccount of the gateway / NameOnCheck: the account holder's name as the bank knows it.
  name_on_account text,
  first_name text,
  last_name text,
  street text,
  zip text,
  source text NOT NULL CHECK (source IN ('api', 'gateway', 'paypage')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  created_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX payment_tokens_partner ON payment_tokens (partner_id);
CREATE INDEX payment_tokens_constituent ON payment_tokens (partner_id, external_constituent_id) WHERE external_constituent_id IS NOT NULL;
CREATE INDEX payment_tokens_key_id ON payment_tokens (secret_key_id);
CREATE INDEX payment_tokens_customer ON payment_tokens (partner_id, customer_key);
