import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrationFiles } from '../../../src/platform/database/migrate.ts';

/**
 * A migration is applied once per database, by name: an edit to one that has shipped never reaches
 * the databases that applied it (0012 was edited so, and 0014 had to repair it: an upgrade audit).
 * Each shipped migration's text is pinned here. A change to one is a new migration, not an edit;
 * a new migration is added to the list when it ships.
 */
const SHIPPED: [string, string][] = [
  ['0001_foundation.sql', '1bad94f2b2dac27f'],
  ['0002_tokens.sql', 'cbe6b153951d18cc'],
  ['0004_payments.sql', '50a94c341617b948'],
  ['0005_lifecycle.sql', 'ae7d2059197bfc03'],
  ['0006_recurring.sql', '180c2ee6c6de4776'],
  ['0007_paylinks.sql', '3e049863a7bf29dc'],
  ['0008_charities.sql', 'cab0f834f399e489'],
  ['0009_gateway.sql', '4f4cfecca9add21e'],
  ['0010_pending_payments.sql', 'e829d5321ffb3cb0'],
  ['0011_pay_link_payments.sql', '332e9d9d46c6444a'],
  ['0012_no_parent_row_locks.sql', '3ed5f3bb2ceb9435'],
  ['0013_charity_name_beginnings.sql', '191a0ecd3d293d80'],
  ['0014_parent_row_triggers_again.sql', 'dd2d40732958600f'],
  ['0015_settlement_in_two_steps.sql', 'c8eb78799e0c0ce4'],
  ['0016_volume_indexes.sql', 'd36bcc0a671fbba9'],
  ['0017_charity_names.sql', '59b73fe9157f4bf7'],
  ['0019_report_indexes.sql', 'bc17a43597222a89'],
  ['0020_idempotency_keys.sql', '74a0074f1ad630cf'],
  ['0022_processor_credentials.sql', 'deab5447dea23e52'],
  ['0023_payment_line_totals.sql', '74e734c26a58e09f'],
  ['0024_notifications.sql', '5e126b1949cdbe6d'],
  ['0025_report_index_order.sql', 'de9fe2b9063336ab'],
  ['0026_notification_retention.sql', '488068eb338455a1'],
  ['0027_idempotency_batch.sql', '32fbe58b4649f1af'],
  ['0028_idempotency_batch_sets.sql', 'f8d41bdf908d9e88'],
];

/** Line endings do not count (a checkout with CRLF applies the same SQL). */
const digest = (sql: string) => createHash('sha256').update(sql.replaceAll('\r\n', '\n')).digest('hex').slice(0, 16);

describe('shipped migrations', () => {
  it('are never edited, removed or renamed, and every migration is in the list', () => {
    const files = migrationFiles().map((f) => [f.name, digest(f.sql)]);
    expect(files).toEqual(SHIPPED);
  });
});
