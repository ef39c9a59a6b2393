import { bigint, pgTable, smallint, sql, text, timestamp, uuid } from '../drizzle.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Reusable card and bank-account tokens; see migrations/0002_tokens.sql. */
export const paymentTokens = pgTable('payment_tokens', {
  id: uuid('id').primaryKey(),
  // No foreign key: the partner row is never deleted (migrations/0012_no_parent_row_locks.sql).
  partnerId: uuid('partner_id').notNull(),
  kind: text('kind', { enum: ['card', 'bank'] }).notNull(),
  gatewayKey: bigint('gateway_key', { mode: 'number' })
    .notNull()
    .default(sql`nextval('gateway_key_seq')`),
  customerKey: text('customer_key').notNull(),
  customerId: text('customer_id'),
  externalConstituentId: text('external_constituent_id'),
  secretCiphertext: text('secret_ciphertext').notNull(),
  secretKeyId: text('secret_key_id').notNull(),
  last4: text('last4').notNull(),
  paymentMethodTypeId: smallint('payment_method_type_id').notNull(),
  expMonth: text('exp_month'),
  expYear: text('exp_year'),
  routingNumber: text('routing_number'),
  accountType: smallint('account_type'),
  checkType: smallint('check_type'),
  bankCountry: text('bank_country'),
  nameOnAccount: text('name_on_account'),
  firstName: text('first_name'),
  lastName: text('last_name'),
  street: text('street'),
  zip: text('zip'),
  source: text('source', { enum: ['api', 'gateway', 'paypage'] }).notNull(),
  status: text('status', { enum: ['active', 'deleted'] }).notNull(),
  createdAt: ts('created_at').notNull(),
  deletedAt: ts('deleted_at'),
});
