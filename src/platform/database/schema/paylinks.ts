import { integrationSources, partners, processors } from './foundation.ts';
import { payments } from './payments.ts';
import { recurringProfiles } from './recurring.ts';
import { paymentTokens } from './tokens.ts';
import { jsonb, pgTable, smallint, text, timestamp, uuid } from '../drizzle.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A pay link; see migrations/0007_paylinks.sql. */
export const payLinks = pgTable('pay_links', {
  id: text('id').primaryKey(),
  partnerId: uuid('partner_id').notNull().references(() => partners.id),
  integrationSourceId: uuid('integration_source_id').references(() => integrationSources.id),
  processorId: uuid('processor_id').references(() => processors.id),
  workflowType: smallint('workflow_type').notNull(),
  status: text('status', { enum: ['active', 'completed', 'cancelled'] }).notNull(),
  redirectUrl: text('redirect_url').notNull(),
  tranId: text('tran_id'),
  lines: jsonb('lines').$type<unknown[]>().notNull(),
  settings: jsonb('settings').$type<Record<string, unknown>>().notNull(),
  leaseUntil: ts('lease_until'),
  paymentId: uuid('payment_id').references(() => payments.id),
  tokenId: uuid('token_id').references(() => paymentTokens.id),
  recurringProfileId: uuid('recurring_profile_id').references(() => recurringProfiles.id),
  createdAt: ts('created_at').notNull(),
  completedAt: ts('completed_at'),
  cancelledAt: ts('cancelled_at'),
});

/** A redirect's responseToken (hash only), single-use, 30 minutes. */
export const payLinkResults = pgTable('pay_link_results', {
  tokenHash: text('token_hash').primaryKey(),
  payLinkId: text('pay_link_id').notNull().references(() => payLinks.id),
  partnerId: uuid('partner_id').notNull().references(() => partners.id),
  paymentId: uuid('payment_id').references(() => payments.id),
  tokenId: uuid('token_id').references(() => paymentTokens.id),
  createdAt: ts('created_at').notNull(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
});
