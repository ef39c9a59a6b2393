import { bigint, boolean, integer, pgTable, smallint, text, timestamp, uuid } from '../drizzle.ts';
import { partners } from './foundation.ts';
import { payments } from './payments.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Partners' notification URLs; see migrations/0024_notifications.sql (the module writes them in SQL text). */
export const notificationConfigs = pgTable('notification_configs', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  partnerId: uuid('partner_id')
    .notNull()
    .references(() => partners.id),
  url: text('url').notNull(),
  retries: smallint('retries').notNull(),
  accessTokenCiphertext: text('access_token_ciphertext'),
  accessTokenKeyId: text('access_token_key_id'),
  accessTokenHint: text('access_token_hint'),
  paused: boolean('paused').notNull().default(false),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
  deletedAt: ts('deleted_at'),
});

/** Partners' signing secrets, sealed by the vault. */
export const notificationSecrets = pgTable('notification_secrets', {
  partnerId: uuid('partner_id')
    .primaryKey()
    .references(() => partners.id),
  secretCiphertext: text('secret_ciphertext').notNull(),
  secretKeyId: text('secret_key_id').notNull(),
  createdAt: ts('created_at').notNull(),
  previousCiphertext: text('previous_ciphertext'),
  previousKeyId: text('previous_key_id'),
  previousExpiresAt: ts('previous_expires_at'),
});

/** The notifications outbox, written by the triggers of migration 0024. */
export const notifications = pgTable('notifications', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  guid: uuid('guid').notNull().defaultRandom(),
  configId: integer('config_id')
    .notNull()
    .references(() => notificationConfigs.id),
  partnerId: uuid('partner_id').notNull(),
  paymentId: uuid('payment_id')
    .notNull()
    .references(() => payments.id),
  url: text('url').notNull(),
  paymentResult: smallint('payment_result').notNull(),
  processStatus: smallint('process_status').notNull(),
  payload: text('payload'),
  status: text('status', { enum: ['waiting', 'pending', 'delivered', 'failed', 'cancelled'] }).notNull(),
  maxRetries: smallint('max_retries').notNull(),
  retryCount: smallint('retry_count').notNull().default(0),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: ts('next_attempt_at').notNull(),
  createdAt: ts('created_at').notNull(),
  modifiedAt: ts('modified_at').notNull(),
  deliveredAt: ts('delivered_at'),
  lastStatusCode: smallint('last_status_code'),
  lastError: text('last_error'),
});
