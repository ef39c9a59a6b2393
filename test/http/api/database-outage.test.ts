import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READY_TIMEOUT_MS } from '../../../src/http/api/health.ts';
import { openPostgres } from '../../../src/platform/database/database.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { unreachableDatabaseError, withUnreachableSql } from '../../helpers/unreachable-database.ts';

/** The API while its database is unreachable or unresponsive (an outage audit). */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('an unreachable database', () => {
  it('is a 503 with Retry-After and one short warn line, not a 500 with a stack trace', async () => {
    const logsBefore = ctx.logs.length;
    await withUnreachableSql(ctx.store, async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/CharitySearch?EIN=53-0196605' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 503, detail: 'The service cannot reach its database. Try again shortly.' });
      const lines = ctx.logs.slice(logsBefore).join('');
      expect(lines).toContain('database unavailable: answered 503');
      expect(lines).not.toContain('"stack"');
      expect(lines).not.toContain('unhandled error');
    });
    expect((await ctx.app.inject({ method: 'GET', url: '/api/CharitySearch?EIN=53-0196605' })).statusCode).not.toBe(503);
  });

  it('logs when the outage began (once, as an error) and when it ended, with the calls it cost', async () => {
    // Readiness reaching the database ends the outage an earlier test began.
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const logsBefore = ctx.logs.length;
    await withUnreachableSql(ctx.store, async () => {
      for (let i = 0; i < 3; i++) expect((await ctx.app.inject({ method: 'GET', url: '/api/CharitySearch?EIN=53-0196605' })).statusCode).toBe(503);
    });
    const during = ctx.logs.slice(logsBefore);
    const began = during.filter((l) => l.includes('database unreachable: calls that need it are answered 503'));
    expect(began).toHaveLength(1);
    expect(began[0]).toContain('"level":50');
    expect(during.join('')).not.toContain('database reachable again');
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const ended = ctx.logs.slice(logsBefore).filter((l) => l.includes('database reachable again'));
    expect(ended).toHaveLength(1);
    expect(JSON.parse(ended[0]!)).toMatchObject({ refusedCalls: 3, downForMs: expect.any(Number), downSince: expect.any(String) });
    // Said once per outage: a reachable database is not announced again.
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect(ctx.logs.slice(logsBefore).filter((l) => l.includes('database reachable again'))).toHaveLength(1);
  });

  it.skipIf(!testDatabaseUrl())('hears of every new connection to PostgreSQL (where an outage ends)', async () => {
    const store = openPostgres(testDatabaseUrl()!, 2);
    let connections = 0;
    store.onConnect(() => connections++);
    try {
      await Promise.all([store.ping(), store.ping()]);
      expect(connections).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('gives the pay page a 503 page with Retry-After, not its 500 page', async () => {
    const find = ctx.services.payLinks.find;
    ctx.services.payLinks.find = async () => {
      throw unreachableDatabaseError();
    };
    try {
      const res = await ctx.app.inject({ method: 'GET', url: '/paylink/AAAAAAAAAAAAAAAAAAAAAAAA' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Please try again later.');
    } finally {
      ctx.services.payLinks.find = find;
    }
  });

  it('makes /readyz answer 503 within its timeout when the database does not answer at all', async () => {
    const ping = ctx.store.ping;
    ctx.store.ping = () => new Promise(() => {});
    try {
      const started = Date.now();
      const res = await ctx.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(Date.now() - started).toBeLessThan(READY_TIMEOUT_MS + 1_000);
    } finally {
      ctx.store.ping = ping;
    }
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it.skipIf(!testDatabaseUrl())('does not kill the process when the connection of an open transaction ends (PostgreSQL)', async () => {
    // pg emits 'error' on a client a transaction holds when its connection ends; unheard, that
    // was an uncaught exception: the whole service stopped at a failover or restart.
    await expect(
      ctx.store.db.transaction(async (tx) => {
        await tx.execute('SELECT pg_terminate_backend(pg_backend_pid())');
      }),
    ).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await ctx.store.sql.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
