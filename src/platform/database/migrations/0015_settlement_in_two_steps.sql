-- Settlement closes a batch in two steps, with the processors asked between them and outside any
-- transaction: the batch is 'closing' while its payments are claimed (settlement_batch_id set,
-- still Authorized), and 'closed' once the processors accepted and the payments settled.
-- Batches recorded before are closed.
ALTER TABLE settlement_batches ADD COLUMN state text NOT NULL DEFAULT 'closed' CHECK (state IN ('closing', 'closed'));
ALTER TABLE settlement_batches ALTER COLUMN state DROP DEFAULT;
