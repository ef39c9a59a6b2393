import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../src/config.ts';
import { createServices } from '../../../src/composition.ts';
import { NotificationOutboxRepository } from '../../../src/modules/notifications/outbox-repository.ts';
import { ManualClock } from '../../../src/platform/clock.ts';
import type { Store } from '../../../src/platform/database/database.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { createLogger } from '../../../src/platform/logging.ts';
import { seedTestPartner } from '../../helpers/context.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { insertSyntheticPayments } from '../../helpers/report-data.ts';
import { freshStore } from '../../helpers/store.ts';
import { rowsRead as rowsReadOf } from '../../helpers/rows-read.ts';

/**
 * The worker's claim keeps a plan fit for the outbox's size. Claimed on an empty outbox, then
 * after a burst (a settlement's thousands of changes at once), it must still look a candidate's
 * earlier notifications up by payment: a plan kept from the empty table re-read every pending row
 * of the URL for each candidate, and a backlog of 15,000 took minutes to drain (a long-run audit).
 */
const BACKLOG = 20_000;
const CLAIM = { limit: 64, busyConfigs: [], leaseMs: 60_000, perConfig: 16 };

let store: Store;
let outbox: NotificationOutboxRepository;

const rowsRead = () => rowsReadOf(store.sql, 'notifications');

describe.runIf(testDatabaseUrl())('the claim after a burst (PostgreSQL)', () => {
  beforeAll(async () => {
    store = await freshStore();
    const services = createServices({ store, clock: new ManualClock(), ids: cryptoIds, config: { ...testConfig(), notificationAllowPrivate: true }, log: createLogger('silent') });
    const partner = await seedTestPartner(services, 'Burst Partner', 'non-profit');
    await services.notificationConfigs.save(partner.ClientId, [
      { notificationConfigurationTypeId: '1', notificationProtocolTypeId: '1', notificationUrl: 'http://127.0.0.1:9/hook', isDeleted: false },
    ]);
    outbox = new NotificationOutboxRepository(store.sql);
    // Claims on the empty outbox, more than the five after which PostgreSQL may keep a generic plan.
    for (let i = 0; i < 8; i++) expect((await outbox.recordAndClaim([], CLAIM)).claimed).toHaveLength(0);
    // The burst: every payment written with its answer makes a pending notification (the outbox trigger).
    await insertSyntheticPayments(store.sql, {
      partnerId: partner.ClientId,
      processorId: partner.processorId,
      integrationSourceIds: [partner.integrationSourceId],
      organizationIds: [null],
      count: BACKLOG,
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-01-02T00:00:00Z'),
      prefix: 'burst',
    });
  }, 180_000);
  afterAll(async () => {
    await store?.close();
  });

  it('reads a few rows per notification claimed, not the backlog for each', async () => {
    const before = await rowsRead();
    const { claimed } = await outbox.recordAndClaim([], CLAIM);
    const read = (await rowsRead()) - before;
    expect(claimed).toHaveLength(CLAIM.perConfig);
    const pending = await store.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM notifications WHERE status = 'pending'");
    expect(pending[0]!.n).toBeGreaterThanOrEqual(BACKLOG * 0.9);
    // Looked up by payment: a few rows a candidate. Kept from the empty table: the whole backlog, each.
    expect(read).toBeLessThan(BACKLOG);
  });
});
