-- The idempotency batch (migration 0027) with one statement for all the claims of a call and one
-- for all its answers, not one a key: each statement of a PL/pgSQL function starts an executor,
-- and each start of a write parses the key table's CHECK constraint again; per key that was a
-- third of the call's CPU in PostgreSQL (a harness, batches of eight: 138-148 us a key, 97-107
-- with these). The same signature and the same answers; docs/decisions.md, "Idempotency keys".
--
-- The claims are one insert over the arrays, which the caller sorts by key: rows go in the
-- arrays' order, so two calls' claims still wait for each other in one order, and an answer still
-- takes its row's lock only after every claim of its call. The keys found taken are then read in
-- a statement of their own, with a snapshot taken after the insert (a key committed by another
-- request meanwhile is found; one answered in the same call is found running, as before).
--
-- Each statement's plan is made once per connection, maybe while the table holds a page or two,
-- and kept as it grows. Every read of the table goes from the arrays outward, a left join (never
-- turned around: the arrays are its outer side) with only nested loops on (no join reads the
-- whole table once for all keys), so each key is a look-up by the primary key. The answers' update
-- joins nothing: it finds its rows where that read found them (ctid), and checks each one's claim
-- again there (a row taken over meanwhile has moved, and is left as it is). Joined to the arrays,
-- an update planned at a page scanned the whole table under them, and kept doing so at 20,000
-- keys (batch-call.test.ts).
CREATE OR REPLACE FUNCTION idempotency_batch(
  c_partner uuid[], c_key text[], c_claim uuid[], c_fingerprint text[],
  c_created timestamptz[], c_expires timestamptz[], c_lease timestamptz[],
  a_partner uuid[], a_key text[], a_claim uuid[], a_status smallint[], a_content_type text[], a_body text[]
) RETURNS TABLE (
  o_claim uuid, o_claimed boolean, o_fingerprint text, o_state text, o_expires_at timestamptz,
  o_lease_until timestamptz, o_status smallint, o_content_type text, o_body text
) LANGUAGE plpgsql
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET enable_material = off
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  claimed uuid[];
  -- Where each answer's row is (NULL: its claim no longer holds the key), in the answers' order.
  answered tid[];
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  IF cardinality(c_key) > 0 THEN
    WITH inserted AS (
      INSERT INTO idempotency_keys AS k (partner_id, key, claim, fingerprint, state, created_at, expires_at, lease_until)
      SELECT c.partner_id, c.key, c.claim, c.fingerprint, 'running', c.created_at, c.expires_at, c.lease_until
      FROM unnest(c_partner, c_key, c_claim, c_fingerprint, c_created, c_expires, c_lease)
        AS c(partner_id, key, claim, fingerprint, created_at, expires_at, lease_until)
      ON CONFLICT (partner_id, key) DO NOTHING
      RETURNING k.claim
    )
    SELECT coalesce(array_agg(i.claim), '{}') INTO claimed FROM inserted i;
    RETURN QUERY SELECT c, true, NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::smallint, NULL::text, NULL::text
      FROM unnest(claimed) c;
    IF cardinality(claimed) < cardinality(c_key) THEN
      -- Nothing found (the row deleted since): the caller reads the key again on its own.
      RETURN QUERY SELECT c.claim, false, k.fingerprint, k.state, k.expires_at, k.lease_until, k.status, k.content_type, k.body
        FROM unnest(c_partner, c_key, c_claim) AS c(partner_id, key, claim)
        LEFT JOIN idempotency_keys k ON k.partner_id = c.partner_id AND k.key = c.key
        WHERE NOT c.claim = ANY (claimed);
    END IF;
  END IF;
  IF cardinality(a_key) > 0 THEN
    SELECT array_agg(t.ctid ORDER BY a.n) INTO answered
      FROM unnest(a_partner, a_key, a_claim) WITH ORDINALITY AS a(partner_id, key, claim, n)
      LEFT JOIN idempotency_keys t ON t.partner_id = a.partner_id AND t.key = a.key AND t.claim = a.claim AND t.state = 'running';
    UPDATE idempotency_keys k
    SET state = 'done', status = a_status[array_position(answered, k.ctid)],
      content_type = a_content_type[array_position(answered, k.ctid)], body = a_body[array_position(answered, k.ctid)]
    WHERE k.ctid = ANY (answered) AND k.claim = a_claim[array_position(answered, k.ctid)] AND k.state = 'running';
  END IF;
END
$$;
