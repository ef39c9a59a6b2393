-- The retention purge finds notifications past NOTIFICATION_RETENTION_DAYS by their creation:
-- rows are written in created_at order, so a BRIN index names the old block ranges at almost no
-- cost to the outbox's writes (a B-tree would take an entry at every delivery's record).
CREATE INDEX notifications_created_brin ON notifications USING brin (created_at);
