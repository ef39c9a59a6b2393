
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
import { bigint, boolean, jsonb, numeric, pgTable, primaryKey, smallint, text, timestamp, uuid } from '../drizzle.ts';

export const partners = pgTable('partners', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  kind: text('kind', { enum: ['non-profit', 'for-profit'] }).notNull(),
  clientSecretHash: text('client_secret_hash').notNull(),
  apiKeyHash: text('api_key_hash').notNull(),
  status: text('status', { enum: ['active', 'disabled'] }).notNull(),
  createdAt: ts('created_at').notNull(),
  secretRotatedAt: ts('secret_rotated_at'),
});

export const integrationSources = pgTable('integration_sources', {
  id: uuid('id').primaryKey(),
  partnerId: uuid('partner_id').notNull().references(() => partners.id),
  name: text('name').notNull(),
  duplicateCheck: boolean('duplicate_check').notNull(),
  isDefault: boolean('is_default').notNull(),
  createdAt: ts('created_at').notNull(),
});

export const organizations = pgTable('organizations', {
  id: uuid('id').primaryKey(),
  partnerId: uuid('partner_id').notNull().references(() => partners.id),
  name: text('name').notNull(),
  charityId: uuid('charity_id'),
  isDefault: boolean('is_default').notNull(),
  createdAt: ts('created_at').notNull(),
});

export const processors = pgTable('processors', {
  id: uuid('id').primaryKey(),
  partnerId: uuid('partner_id').notNull().references(() => partners.id),
  name: text('name').notNull(),
  adapter: text('adapter').notNull(),
  mkey: text('mkey').notNull(),
  paymentMethodTypes: smallint('payment_method_types').array().notNull(),
  isDefault: boolean('is_default').notNull(),
  createdAt: ts('created_at').notNull(),
});

/** One fee schedule per partner and TransactionSourceGroupId. Rates are percentages (2.9 = 2.9 %). */
export const feeSchedules = pgTable(
  'fee_schedules',
  {
    partnerId: uuid('partner_id').notNull().references(() => partners.id),
    groupId: smallint('group_id').notNull(),
    cardFeeRate: numeric('card_fee_rate').notNull(),
    platformCommissionRate: numeric('platform_commission_rate').notNull(),
    maxCommissionRate: numeric('max_commission_rate').notNull(),
    perTransFeeCents: bigint('per_trans_fee_cents', { mode: 'number' }).notNull(),
    /** PaymentMethodTypeId (as a string key) -> flat fee in cents. */
    cardTypeFees: jsonb('card_type_fees').$type<Record<string, number>>().notNull(),
    achFeeRate: numeric('ach_fee_rate').notNull(),
    achFeeCapCents: bigint('ach_fee_cap_cents', { mode: 'number' }),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.groupId] })],
);

export const accessTokens = pgTable('access_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  partnerId: uuid('partner_id').notNull().references(() => partners.id),
  issuedAt: ts('issued_at').notNull(),
  expiresAt: ts('expires_at').notNull(),
});

/** Small keyed facts about this installation (for example which partners are the demo ones). */
export const appSettings = pgTable('app_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
});
