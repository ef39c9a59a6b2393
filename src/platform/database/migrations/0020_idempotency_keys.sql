-- Idempotency keys of surface A (issue 29; docs/decisions.md, "Idempotency keys"). A key's row is
-- its lock: the first request with a key inserts it (state 'running'), and every other request
-- with the key, in this process or another, finds it. The answer is written on it when the
-- request ends ('done'), or the request's outcome is marked unknown ('unknown').
--
-- No foreign key to partners: the check would lock the partner's row on every keyed request, and
-- a key outlives nothing (IDEMPOTENCY_TTL).
CREATE TABLE idempotency_keys (
  partner_id uuid NOT NULL,
  key text NOT NULL,
  -- The request that holds the key: its writes name it, so a request whose key expired and was
  -- taken by another never writes over the other's row.
  claim uuid NOT NULL,
  -- SHA-256 (hex) of the request: method, route, query and body (card numbers truncated, no CVV).
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'done', 'unknown')),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- Until then a running request is taken as still in flight (409 with Retry-After).
  lease_until timestamptz NOT NULL,
  status smallint,
  content_type text,
  body text,
  PRIMARY KEY (partner_id, key)
);

-- The purge reads keys by expiry; rows arrive in expiry order, so a BRIN index is enough and
-- costs almost nothing per insert.
CREATE INDEX idempotency_keys_expiry ON idempotency_keys USING brin (expires_at);
