-- The SOAP tokenization gateway (surface B): its users, who log in with GetClientSessionID, and
-- the short-lived client sessions that tokenization calls carry.
CREATE TABLE gateway_users (
  id uuid PRIMARY KEY,
  partner_id uuid NOT NULL REFERENCES partners(id),
  username text NOT NULL,
  -- scrypt (PASSWORD_PARAMS) of the password; the password itself is never stored.
  password_hash text NOT NULL,
  -- The Vendor of the original gateway: names the integration, starts every CustomerID it makes.
  vendor text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  created_at timestamptz NOT NULL,
  password_changed_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX gateway_users_username ON gateway_users (lower(username));
CREATE INDEX gateway_users_partner ON gateway_users (partner_id);

CREATE TABLE gateway_sessions (
  -- SHA-256 of the ClientSessionID: the id is a bearer credential and is never stored.
  id_hash text PRIMARY KEY,
  gateway_user_id uuid NOT NULL REFERENCES gateway_users(id),
  partner_id uuid NOT NULL REFERENCES partners(id),
  client_ip text NOT NULL,
  user_agent text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- The customer the session's tokens belong to, made by its first tokenization call.
  customer_key text,
  customer_id text
);
CREATE INDEX gateway_sessions_expires ON gateway_sessions (expires_at);
CREATE INDEX gateway_sessions_user ON gateway_sessions (gateway_user_id);
