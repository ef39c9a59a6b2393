-- The claims and answers of a batch of idempotency keys (docs/decisions.md, "Idempotency keys"),
-- in one call: the claims in key order, each an insert that takes no lock when the key is taken
-- and, when it is, a read of the row that holds it; then the answers, each an update of its own
-- claim's row. Every statement here is a look-up by the primary key, planned once per connection:
-- with sequential scans off, a plan made while the table held a page or two is the index scan too
-- (a sequential scan, as cheap then, would have been kept as the table grew). One statement of
-- arrays joined cost PostgreSQL 410 us to plan and run for one claim and one answer; this call, 90.
--
-- Two processes' calls never wait for each other in a cycle. A claim waits only for another
-- call's uncommitted insert of the same key, and callers sort the claims by key, so two calls'
-- claims wait in one order. An answer locks only its own claim's row, and only after every claim
-- of its call: a call waiting at a claim holds no answer's lock, and a call answering waits for no
-- one (a claim of that key by another call waits for it, never the other way). With the answers
-- first, a call answering K then claiming J could wait for a call that claimed J and waits at K.
-- Each statement reads with a snapshot of its own: a claim sees a key committed by another
-- request after the call began; a key answered later in the same call is found running.
--
-- The key's writes commit without waiting for the WAL flush (set for the caller's transaction: a
-- SET clause of the function would end with the call, before the commit).
CREATE FUNCTION idempotency_batch(
  c_partner uuid[], c_key text[], c_claim uuid[], c_fingerprint text[],
  c_created timestamptz[], c_expires timestamptz[], c_lease timestamptz[],
  a_partner uuid[], a_key text[], a_claim uuid[], a_status smallint[], a_content_type text[], a_body text[]
) RETURNS TABLE (
  o_claim uuid, o_claimed boolean, o_fingerprint text, o_state text, o_expires_at timestamptz,
  o_lease_until timestamptz, o_status smallint, o_content_type text, o_body text
) LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  i integer;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  FOR i IN 1 .. coalesce(array_length(c_key, 1), 0) LOOP
    INSERT INTO idempotency_keys (partner_id, key, claim, fingerprint, state, created_at, expires_at, lease_until)
    VALUES (c_partner[i], c_key[i], c_claim[i], c_fingerprint[i], 'running', c_created[i], c_expires[i], c_lease[i])
    ON CONFLICT (partner_id, key) DO NOTHING;
    o_claim := c_claim[i];
    o_claimed := FOUND;
    o_fingerprint := NULL; o_state := NULL; o_expires_at := NULL; o_lease_until := NULL;
    o_status := NULL; o_content_type := NULL; o_body := NULL;
    IF NOT o_claimed THEN
      -- Nothing found (the row deleted since): the caller reads the key again on its own.
      SELECT k.fingerprint, k.state, k.expires_at, k.lease_until, k.status, k.content_type, k.body
      INTO o_fingerprint, o_state, o_expires_at, o_lease_until, o_status, o_content_type, o_body
      FROM idempotency_keys k WHERE k.partner_id = c_partner[i] AND k.key = c_key[i];
    END IF;
    RETURN NEXT;
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(a_key, 1), 0) LOOP
    UPDATE idempotency_keys k
    SET state = 'done', status = a_status[i], content_type = a_content_type[i], body = a_body[i]
    WHERE k.partner_id = a_partner[i] AND k.key = a_key[i] AND k.claim = a_claim[i] AND k.state = 'running';
  END LOOP;
END
$$;
