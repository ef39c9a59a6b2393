import { bigint, boolean, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { processors } from './foundation.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A processor's credentials at its acquirer, sealed by the vault; see migrations/0022_processor_credentials.sql. */
export const processorCredentials = pgTable('processor_credentials', {
  processorId: uuid('processor_id')
    .primaryKey()
    .references(() => processors.id),
  environment: text('environment', { enum: ['sandbox', 'production'] }).notNull(),
  secretCiphertext: text('secret_ciphertext').notNull(),
  secretKeyId: text('secret_key_id').notNull(),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

/** The simulator's record of what it did (processors/simulator-ledger.ts writes it in SQL text). */
export const simulatorLedger = pgTable('simulator_ledger', {
  reference: text('reference').primaryKey(),
  kind: text('kind', { enum: ['sale', 'refund', 'void'] }).notNull(),
  approved: boolean('approved').notNull(),
  responseCode: text('response_code').notNull(),
  transactionId: text('transaction_id').notNull(),
  authCode: text('auth_code'),
  amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
  originalTransactionId: text('original_transaction_id'),
  recordedAt: ts('recorded_at').notNull(),
});
