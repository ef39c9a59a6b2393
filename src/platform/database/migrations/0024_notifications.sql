-- Issue 27: partner notifications (docs/notifications.md, docs/decisions.md "Notifications").
-- A partner's notification URLs. The AccessToken sent with each notification is sealed by the
-- vault (context notification_config:<id>), never a plain column; its last four characters are
-- kept apart so that GET /api/notificationConfig can show which token it is.
CREATE TABLE notification_configs (
  -- NotificationConfigId
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  partner_id uuid NOT NULL REFERENCES partners (id),
  url text NOT NULL,
  retries smallint NOT NULL CHECK (retries BETWEEN 0 AND 20),
  access_token_ciphertext text,
  access_token_key_id text,
  access_token_hint text,
  -- An operator's pause (payments notifications pause): its notifications wait, none are lost.
  paused boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
-- The one look-up a payment's change makes when its partner has no URL.
CREATE INDEX notification_configs_partner ON notification_configs (partner_id) WHERE deleted_at IS NULL;

-- The signing secret of each partner, sealed by the vault (context notification_secret:<partner>);
-- during a rotation the previous one still signs until it expires.
CREATE TABLE notification_secrets (
  partner_id uuid PRIMARY KEY REFERENCES partners (id),
  secret_ciphertext text NOT NULL,
  secret_key_id text NOT NULL,
  created_at timestamptz NOT NULL,
  previous_ciphertext text,
  previous_key_id text,
  previous_expires_at timestamptz
);

-- The outbox: one row per change of a payment's PaymentResult or ProcessStatus and config of its
-- partner, written by the triggers below in the transaction that made the change.
CREATE TABLE notifications (
  -- NotificationId
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- NotificationGuid: the event id partners de-duplicate by.
  guid uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  config_id integer NOT NULL REFERENCES notification_configs (id),
  partner_id uuid NOT NULL,
  payment_id uuid NOT NULL REFERENCES payments (id),
  url text NOT NULL,
  payment_result smallint NOT NULL,
  process_status smallint NOT NULL,
  -- The JSON text sent (null while it waits for its recurring profile's move).
  payload text,
  status text NOT NULL CHECK (status IN ('waiting', 'pending', 'delivered', 'failed', 'cancelled')),
  max_retries smallint NOT NULL,
  retry_count smallint NOT NULL DEFAULT 0,
  -- Claims made: a worker's claim sets it, and only the holder of the latest claim records the outcome.
  attempts integer NOT NULL DEFAULT 0,
  -- When it is due: the next try, or the end of a worker's lease on it.
  next_attempt_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  modified_at timestamptz NOT NULL,
  delivered_at timestamptz,
  last_status_code smallint,
  last_error text
);
-- What a worker claims: per URL, the due ones in order.
CREATE INDEX notifications_due ON notifications (config_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX notifications_payment ON notifications (payment_id, config_id, id);
CREATE INDEX notifications_waiting ON notifications (created_at) WHERE status = 'waiting';

-- The payload: the original's payment-status message, field by field (docs/notifications.md).
-- Dates as the original writes them: UTC, no offset, milliseconds. Amounts as exact decimals.
CREATE FUNCTION notification_payload(pay_id uuid, n_result smallint, n_status smallint) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT row_to_json(x)::text FROM (
    SELECT p.payment_id AS "PaymentId",
           p.id AS "PaymentGuid",
           to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS "PaymentDate",
           p.transaction_id AS "PaymentExternalId",
           NULL::text AS "OriginalExternalID",
           r.profile_id AS "RecurringProfileId",
           r.id AS "RecurringProfileGuid",
           CASE WHEN r.status = 'active' THEN to_char(r.next_bill_date, 'YYYY-MM-DD"T00:00:00.000"') END AS "NextBillDate",
           CASE r.status WHEN 'active' THEN 'Active' WHEN 'suspended' THEN 'Suspended' WHEN 'completed' THEN 'Completed' WHEN 'cancelled' THEN 'Cancelled' END AS "RecurringProfileStatus",
           n_status AS "ProcessStatus",
           CASE n_status WHEN 1 THEN 'Not Processed' WHEN 2 THEN 'Awaiting Authorization' WHEN 4 THEN 'Authorized' WHEN 5 THEN 'Rejected'
             WHEN 6 THEN 'Refund Required' WHEN 7 THEN 'Awaiting Refund' WHEN 8 THEN 'Refunded' WHEN 9 THEN 'Cancelled'
             WHEN 10 THEN 'Chargeback' WHEN 11 THEN 'Refund Rejected' END AS "ProcessStatusValue",
           n_result AS "PaymentResult",
           CASE n_result WHEN 1 THEN 'Pending' WHEN 2 THEN 'Processing' WHEN 3 THEN 'Successful' WHEN 4 THEN 'Failed'
             WHEN 5 THEN 'Refunded' WHEN 6 THEN 'Cancelled' END AS "PaymentResultValue",
           trim_scale(p.total_amount_cents::numeric / 100) AS "Amount",
           NULL::integer AS "DistributionType",
           NULL::text AS "DistributionTypeValue",
           NULL::integer AS "DistributionStatus",
           NULL::integer AS "DistributionId",
           p.integration_source_id AS "SourceGuid",
           s.name AS "SourceName",
           coalesce(p.charity_id, o.charity_id) AS "CharityId",
           p.organization_id AS "OrganizationGuid",
           o.name AS "OrganizationName",
           p.tran_id AS "TranId",
           CASE p.method WHEN 'card' THEN 'Card' WHEN 'ach' THEN 'ACH' WHEN 'wallet' THEN 'Wallet' END AS "PaymentMethod",
           p.payment_method_type_id AS "PaymentMethodTypeId",
           p.card_type AS "CardType",
           p.card_last4 AS "CardLastFour",
           p.check_account_last4 AS "AccountLastFour",
           p.successful AS "Successful",
           p.response_code AS "ResponseCode",
           p.message AS "Message",
           p.auth_code AS "AuthCode",
           trim_scale(p.lines_fees_cents::numeric / 100) AS "TotalFees",
           p.currency AS "Currency",
           to_char(p.settled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS "SettledDate",
           CASE a.kind WHEN 'refund' THEN 'Refund' WHEN 'void' THEN 'Void' END AS "AdjustmentType",
           a.reason AS "AdjustmentReason",
           a.transaction_id AS "AdjustmentExternalId",
           p.external_customer_id AS "ExternalCustomerId",
           p.external_constituent_id AS "ExternalConstituentId"
      FROM payments p
      LEFT JOIN recurring_profiles r ON r.id = p.recurring_profile_id
      LEFT JOIN integration_sources s ON s.id = p.integration_source_id
      LEFT JOIN organizations o ON o.id = p.organization_id
      -- The refund or void that made this change (the latest approved or in flight).
      LEFT JOIN LATERAL (
        SELECT kind, reason, transaction_id FROM payment_adjustments
         WHERE payment_id = p.id AND status IN ('pending', 'approved') AND n_status IN (7, 8, 9, 11)
         ORDER BY requested_at DESC LIMIT 1) a ON true
     WHERE p.id = pay_id) x
$$;

-- Wakes the delivery workers (LISTEN payments_notifications) at commit, at most once per 50 ms
-- window: a transaction that NOTIFYs holds a database-wide lock from its commit until its WAL is
-- flushed, so one NOTIFY per payment made the payments of every partner with a URL commit one at a
-- time. The first transaction of each window that asks takes it (the advisory lock does not wait);
-- the others' rows are claimed by the worker that wakes, or at its next poll.
CREATE FUNCTION notification_wake() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF pg_try_advisory_xact_lock(27027, ((extract(epoch FROM clock_timestamp()) * 20)::bigint % 2147483647)::integer) THEN
    PERFORM pg_notify('payments_notifications', '');
  END IF;
END $$;

-- A payment's change makes one outbox row per live config of its partner. A partner without a
-- config costs one index look-up. A recurring charge's answer waits ('waiting', no payload) for
-- its profile's move, which tells its next bill date or its suspension (recurring_profiles_notify).
CREATE FUNCTION payments_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  body text;
  waits boolean;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM notification_configs WHERE partner_id = NEW.partner_id AND deleted_at IS NULL) THEN
    RETURN NULL;
  END IF;
  waits := NEW.bill_date IS NOT NULL AND (TG_OP = 'INSERT' OR OLD.payment_result IN (1, 2));
  IF NOT waits THEN
    body := notification_payload(NEW.id, NEW.payment_result, NEW.process_status);
  END IF;
  INSERT INTO notifications (config_id, partner_id, payment_id, url, payment_result, process_status, payload, status, max_retries,
                             next_attempt_at, created_at, modified_at)
  SELECT c.id, NEW.partner_id, NEW.id, c.url, NEW.payment_result, NEW.process_status, body,
         CASE WHEN waits THEN 'waiting' ELSE 'pending' END, c.retries, clock_timestamp(), clock_timestamp(), clock_timestamp()
    FROM notification_configs c
   WHERE c.partner_id = NEW.partner_id AND c.deleted_at IS NULL
   ORDER BY c.id;
  IF NOT waits THEN
    PERFORM notification_wake();
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER payments_notify_update AFTER UPDATE OF payment_result, process_status ON payments
  FOR EACH ROW WHEN (OLD.payment_result IS DISTINCT FROM NEW.payment_result OR OLD.process_status IS DISTINCT FROM NEW.process_status)
  EXECUTE FUNCTION payments_notify();
-- A payment written with its final answer at once (never pending) is a change too.
CREATE TRIGGER payments_notify_insert AFTER INSERT ON payments
  FOR EACH ROW WHEN (NEW.payment_result NOT IN (1, 2))
  EXECUTE FUNCTION payments_notify();

-- A profile moved after a charge (approved: its next bill date; declined: a retry, or suspended
-- after the last one): the charge's waiting notifications get their payload and become due.
CREATE FUNCTION recurring_profiles_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE notifications
     SET payload = notification_payload(payment_id, payment_result, process_status), status = 'pending',
         next_attempt_at = clock_timestamp(), modified_at = clock_timestamp()
   WHERE status = 'waiting' AND payment_id = NEW.last_payment_id;
  IF FOUND THEN
    PERFORM notification_wake();
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER recurring_profiles_notify AFTER UPDATE ON recurring_profiles
  FOR EACH ROW WHEN (NEW.last_payment_id IS NOT NULL AND (OLD.last_attempt_at IS DISTINCT FROM NEW.last_attempt_at OR OLD.status IS DISTINCT FROM NEW.status))
  EXECUTE FUNCTION recurring_profiles_notify();
