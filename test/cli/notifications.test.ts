import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testConfig } from '../../src/config.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices } from '../../src/composition.ts';
import { openStore } from '../../src/platform/database/database.ts';
import { cardPaymentInput, seedTestPartner } from '../helpers/context.ts';
import { runCliProcess } from '../helpers/process.ts';
import { processStore } from '../helpers/store.ts';
import { testLogger } from '../helpers/logger.ts';
import { startReceiver, verifySignature, type Receiver } from '../helpers/receiver.ts';

/** `npx payments notifications ...` as processes, on this run's kind of store. */
let env: Record<string, string>;
let cleanup: () => Promise<void>;
let receiver: Receiver;
let partnerId: string;

beforeAll(async () => {
  ({ env, cleanup } = await processStore('notifications-cli'));
  env = { ...env, NOTIFICATION_ALLOW_PRIVATE: 'on' };
  receiver = await startReceiver();
  const store = await openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 2 });
  try {
    // The vault of the data directory (its key file), as the CLI processes open it.
    const services = createServices({ log: testLogger(), store, clock: new ManualClock(), ids: cryptoIds, config: testConfig({ dataDir: env.DATA_DIR!, vaultKey: undefined, notificationAllowPrivate: true }) });
    const partner = await seedTestPartner(services, 'Notifications CLI partner', 'non-profit');
    partnerId = partner.ClientId;
    await services.notificationConfigs.save(partnerId, [{ notificationConfigurationTypeId: '1', notificationProtocolTypeId: '1', notificationUrl: receiver.url, isDeleted: false }]);
    await services.payments.payCard({ id: partner.ClientId, name: partner.name, kind: partner.kind }, cardPaymentInput(2500));
  } finally {
    await store.close();
  }
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await cleanup?.();
});

const cli = (...args: string[]) => runCliProcess(['notifications', ...args], env);

describe('payments notifications', { timeout: 180_000 }, () => {
  it('list, pause, deliver, resume, redeliver, secret rotate', async () => {
    const listed = await cli('list', '--partner', partnerId);
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toMatch(/1 notification\(s\):\n {2}1 {2}pending {2}payment /);

    expect((await cli('pause', '--partner', partnerId)).stdout).toContain('1 notification URL(s) paused.');
    expect((await cli('deliver')).stdout).toContain('0 delivery attempt(s) made.');
    expect(receiver.received).toHaveLength(0);
    expect((await cli('resume', '--config', '1')).stdout).toContain('1 notification URL(s) resumed.');

    const rotated = await cli('secret', 'rotate', '--partner', partnerId, '--json');
    const secret = JSON.parse(rotated.stdout).signingSecret as string;
    expect(secret).toMatch(/^whsec_/);
    expect((await cli('deliver')).stdout).toContain('1 delivery attempt(s) made.');
    expect(receiver.received).toHaveLength(1);
    expect(verifySignature(receiver.received[0]!.headers['payments-signature'] as string, receiver.received[0]!.body, secret)).toBe(true);

    const delivered = JSON.parse((await cli('list', '--status', 'delivered', '--json')).stdout);
    expect(delivered.notifications).toEqual([expect.objectContaining({ id: 1, status: 'delivered', retryCount: 0 })]);
    expect((await cli('redeliver', '1')).stdout).toContain('1 notification(s) due again now: 1.');
    await cli('deliver');
    expect(receiver.received).toHaveLength(2);

    expect((await cli('pause')).code).toBe(2);
    expect((await cli('redeliver', 'x')).code).toBe(2);
  });
});
