import { index, pgTable, primaryKey, smallint, text, timestamp, uuid } from '../drizzle.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Idempotency keys of surface A; see migrations/0020_idempotency_keys.sql. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    partnerId: uuid('partner_id').notNull(),
    key: text('key').notNull(),
    claim: uuid('claim').notNull(),
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: ['running', 'done', 'unknown'] }).notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    leaseUntil: ts('lease_until').notNull(),
    status: smallint('status'),
    contentType: text('content_type'),
    body: text('body'),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.key] }), index('idempotency_keys_expiry').using('brin', t.expiresAt)],
);
