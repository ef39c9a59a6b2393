import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backgroundJobs } from '../../../src/composition.ts';
import { startBackgroundJobs } from '../../../src/platform/jobs.ts';
import { SEQUENCE_GAP } from '../../../src/modules/operations/database-identity-service.ts';
import { openStore } from '../../../src/platform/database/database.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { runCliProcess } from '../../helpers/process.ts';
import { processStore } from '../../helpers/store.ts';

/**
 * A database restored from a backup or copied (a backup audit: the restored copy charged a bill
 * date and refunded a payment a second time, and issued a CcInfoKey again for another card).
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** What a restore into another database looks like: the record names another database. */
const pretendRestored = () =>
  ctx.store.sql.query(`UPDATE app_settings SET value = jsonb_set(value, '{paymentsOid}', '1') WHERE key = 'database-identity'`);
const nextGatewayKey = async () => Number((await ctx.store.sql.query<{ n: string }>(`SELECT nextval('gateway_key_seq')::text AS n`))[0]!.n);

describe('the database identity', () => {
  it('is recorded at the first start, then found the same; a restored copy is told, and waits until confirmed', async () => {
    const identity = ctx.services.databaseIdentity;
    expect(await identity.confirmed()).toBe(true); // nothing recorded: nothing to wait for
    expect((await identity.checkAtStart()).state).toBe('recorded-now');
    expect((await identity.checkAtStart()).state).toBe('same');

    await pretendRestored();
    const moved = await identity.checkAtStart();
    expect(moved).toMatchObject({ state: 'moved', recorded: { paymentsOid: 1 }, current: { paymentsOid: expect.any(Number) } });
    expect(await identity.confirmed()).toBe(false);

    const before = await nextGatewayKey();
    const done = await identity.confirmMove();
    expect(done.sequences.map((s) => s.name)).toEqual(['gateway keys', 'customer keys', 'payment ids', 'settlement batch numbers', 'recurring profile numbers']);
    for (const s of done.sequences) expect(s.to - s.from).toBe(SEQUENCE_GAP);
    expect(await nextGatewayKey()).toBe(before + SEQUENCE_GAP + 1);
    expect(await identity.confirmed()).toBe(true);
    expect((await identity.checkAtStart()).state).toBe('same');

    // Once is enough: again only with force (each run moves the sequences on again).
    await expect(identity.confirmMove()).rejects.toThrow(/already the confirmed one/);
    expect((await identity.confirmMove({ force: true })).sequences[0]!.to).toBeGreaterThan(before + 2 * SEQUENCE_GAP);

    // A restore it cannot tell (a physical backup, a copied data directory): held by hand.
    await identity.hold();
    expect(await identity.confirmed()).toBe(false);
    expect((await identity.checkAtStart()).state).toBe('moved');
    await identity.confirmMove();
    expect(await identity.confirmed()).toBe(true);
  });

  it('keeps held-outcome resolution, settlement and billing waiting while unconfirmed, not the purges', async () => {
    const flagged = backgroundJobs({ ...ctx.services, config: { ...ctx.services.config, billingWorker: true } }).filter((j) => j.needsConfirmedDatabase).map((j) => j.name);
    expect(flagged).toEqual(['resolve held outcomes from the processors', 'settlement', 'recurring billing']);

    const waiting = { name: 'money', everyMs: 10, needsConfirmedDatabase: true, run: vi.fn(async () => {}) };
    const other = { name: 'purge', everyMs: 10, run: vi.fn(async () => {}) };
    const log = { error: vi.fn(), warn: vi.fn(), info: vi.fn() } as unknown as FastifyBaseLogger & { error: ReturnType<typeof vi.fn> };
    await pretendRestored();
    const jobs = startBackgroundJobs([waiting, other], log, { databaseConfirmed: () => ctx.services.databaseIdentity.confirmed() });
    try {
      await vi.waitFor(() => expect(other.run.mock.calls.length).toBeGreaterThanOrEqual(3));
      expect(waiting.run).not.toHaveBeenCalled();
      expect(log.error).toHaveBeenCalledTimes(1);
      expect(log.error.mock.calls[0]![1]).toMatch(/restored or copied .* payments database confirm-move/);
      await ctx.services.databaseIdentity.confirmMove();
      await vi.waitFor(() => expect(waiting.run).toHaveBeenCalled());
    } finally {
      await jobs.stop();
    }
  });

  it('skips, with a warning, when it cannot check (the database unreachable)', async () => {
    const waiting = { name: 'money', everyMs: 10, needsConfirmedDatabase: true, run: vi.fn(async () => {}) };
    const log = { error: vi.fn(), warn: vi.fn(), info: vi.fn() } as unknown as FastifyBaseLogger & { warn: ReturnType<typeof vi.fn> };
    const jobs = startBackgroundJobs([waiting], log, { databaseConfirmed: async () => Promise.reject(new Error('connection refused')) });
    try {
      await vi.waitFor(() => expect(log.warn).toHaveBeenCalled());
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(waiting.run).not.toHaveBeenCalled();
      expect(log.warn).toHaveBeenCalledTimes(1);
    } finally {
      await jobs.stop();
    }
  });
});

describe('payments database status | confirm-move', () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ env, cleanup } = await processStore('identity'));
  });
  afterAll(() => cleanup());

  it('says whether the database waits (exit 1) and confirms it', async () => {
    const store = await openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 1 });
    try {
      const { DatabaseIdentityService } = await import('../../../src/modules/operations/database-identity-service.ts');
      const { OperationsRepository } = await import('../../../src/modules/operations/operations-repository.ts');
      await new DatabaseIdentityService({ repository: new OperationsRepository(store) }).checkAtStart();
      await store.sql.query(`UPDATE app_settings SET value = jsonb_set(value, '{paymentsOid}', '1') WHERE key = 'database-identity'`);
    } finally {
      await store.close();
    }
    const waiting = await runCliProcess(['database', 'status'], env);
    expect(waiting.code).toBe(1);
    expect(waiting.stdout).toMatch(/Waiting: settlement and billing do not run/);
    // The commands that move money wait too.
    for (const command of [['billing', 'run'], ['settle']]) {
      const refused = await runCliProcess(command, env);
      expect(refused.code, command.join(' ')).toBe(1);
      expect(refused.stderr).toMatch(/restored or copied and waits for confirmation/);
    }
    const confirmed = await runCliProcess(['database', 'confirm-move', '--json'], env);
    expect(confirmed.code).toBe(0);
    expect(JSON.parse(confirmed.stdout).sequences).toHaveLength(5);
    const after = await runCliProcess(['database', 'status', '--json'], env);
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ confirmed: true });
    const twice = await runCliProcess(['database', 'confirm-move'], env);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/already the confirmed one/);
    expect((await runCliProcess(['database', 'hold'], env)).code).toBe(0);
    expect((await runCliProcess(['database', 'status'], env)).code).toBe(1);
  }, 120_000);
});
