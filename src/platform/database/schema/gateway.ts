import { partners } from './foundation.ts';
import { index, pgTable, sql, text, timestamp, uniqueIndex, uuid } from '../drizzle.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Users of the SOAP gateway; see migrations/0009_gateway.sql. */
export const gatewayUsers = pgTable(
  'gateway_users',
  {
    id: uuid('id').primaryKey(),
    partnerId: uuid('partner_id').notNull().references(() => partners.id),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    vendor: text('vendor').notNull(),
    status: text('status', { enum: ['active', 'disabled'] }).notNull(),
    createdAt: ts('created_at').notNull(),
    passwordChangedAt: ts('password_changed_at').notNull(),
  },
  (t) => [uniqueIndex('gateway_users_username').on(sql`lower(${t.username})`), index('gateway_users_partner').on(t.partnerId)],
);

/** ClientSessionIDs of the SOAP gateway, stored as hashes. */
export const gatewaySessions = pgTable('gateway_sessions', {
  idHash: text('id_hash').primaryKey(),
  gatewayUserId: uuid('gateway_user_id').notNull().references(() => gatewayUsers.id),
  partnerId: uuid('partner_id').notNull().references(() => partners.id),
  clientIp: text('client_ip').notNull(),
  userAgent: text('user_agent'),
  createdAt: ts('created_at').notNull(),
  expiresAt: ts('expires_at').notNull(),
  customerKey: text('customer_key'),
  customerId: text('customer_id'),
});
