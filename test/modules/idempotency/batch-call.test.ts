import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyRepository, type NewClaim } from '../../../src/modules/idempotency/idempotency-repository.ts';
import type { Store } from '../../../src/platform/database/database.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { freshDatabase, freshStore } from '../../helpers/store.ts';
import { rowsRead as rowsReadOf } from '../../helpers/rows-read.ts';

/**
 * The batch's statements keep plans fit for the key table's size: planned on an empty table (a
 * server's first keyed requests) and used once it holds a day of keys, each claim, look-up and
 * answer still finds its row by the primary key. A plan kept from the table analysed at a page
 * read the whole table for each (autovacuum, whose next ANALYZE would make new plans, is off on
 * some machines).
 */
const KEYS = 20_000;

let store: Store;
let repository: IdempotencyRepository;
const partnerId = randomUUID();
const claimOf = (key: string): NewClaim => {
  const now = new Date('2026-11-30T12:00:00Z');
  return { partnerId, key, claim: randomUUID(), fingerprint: `f-${key}`, createdAt: now, expiresAt: new Date(now.getTime() + 86_400_000), leaseUntil: new Date(now.getTime() + 40_000) };
};
const answer = { status: 201, contentType: 'application/json; charset=utf-8', body: '{"PaymentId":1}' };

const rowsRead = () => rowsReadOf(store.sql, 'idempotency_keys');

describe.runIf(testDatabaseUrl())('the batch on a grown key table (PostgreSQL)', () => {
  beforeAll(async () => {
    store = await freshStore();
    repository = new IdempotencyRepository(store.sql);
    // Analysed while it holds a page (as autovacuum does after the first few dozen keys), then more
    // batches than the five after which PostgreSQL may keep a generic plan.
    await repository.claim(claimOf('first'));
    await store.sql.query('ANALYZE idempotency_keys');
    for (let i = 0; i < 8; i++) {
      const c = claimOf(`early-${i}`);
      expect(await repository.claim(c)).toEqual({ claimed: true });
      expect(await repository.claim(claimOf(`early-${i}`))).toMatchObject({ claimed: false, existing: { state: 'running' } });
      await repository.finish(partnerId, c.key, c.claim, answer);
    }
    await store.sql.query(
      `INSERT INTO idempotency_keys (partner_id, key, claim, fingerprint, state, created_at, expires_at, lease_until, status, content_type, body)
       SELECT $1, 'day-' || g, gen_random_uuid(), 'f', 'done', now(), now() + interval '1 day', now(), 201, 'application/json', repeat('x', 1600)
       FROM generate_series(1, ${KEYS}) g`,
      [partnerId],
    );
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it('claims, finds and answers keys by the primary key, not by reading the table', async () => {
    const fresh = claimOf('late-new');
    const before = await rowsRead();
    expect(await repository.claim(fresh)).toEqual({ claimed: true });
    expect(await repository.claim(claimOf('day-17'))).toMatchObject({ claimed: false, existing: { state: 'done' } });
    await repository.finish(partnerId, fresh.key, fresh.claim, answer);
    const read = (await rowsRead()) - before;
    expect(await repository.claim(claimOf('late-new'))).toMatchObject({ claimed: false, existing: { state: 'done', answer } });
    // A few rows by the index; a plan kept from the empty table reads the whole table per key.
    expect(read).toBeLessThan(100);
  });
});

/**
 * Two processes' calls never wait for each other in a cycle (migration 0027). Call A has claimed
 * J (its transaction still open); call B claims J and answers K; then A claims K. With B's answer
 * made before its claims, B would hold K's row while waiting for A at J, and A wait for B at K:
 * PostgreSQL would end one of them as a deadlock after a second.
 */
describe.runIf(testDatabaseUrl())('two calls at once (PostgreSQL)', () => {
  it('a call waiting at a claim holds no answer: the other goes on, and both end', async () => {
    const db = await freshDatabase(testDatabaseUrl()!);
    const a = new pg.Client({ connectionString: db.url });
    const b = new pg.Client({ connectionString: db.url });
    await a.connect();
    await b.connect();
    try {
      const batch = 'SELECT o_claimed, o_state FROM idempotency_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)';
      const now = new Date();
      const later = new Date(now.getTime() + 86_400_000);
      const claims = (keys: { key: string; claim: string }[]) => [keys.map(() => partnerId), keys.map((k) => k.key), keys.map((k) => k.claim), keys.map(() => 'f'), keys.map(() => now), keys.map(() => later), keys.map(() => later)];
      const answers = (keys: { key: string; claim: string }[]) => [keys.map(() => partnerId), keys.map((k) => k.key), keys.map((k) => k.claim), keys.map(() => 201), keys.map(() => 'application/json'), keys.map(() => '{}')];
      const k = { key: 'k', claim: randomUUID() };
      const j = { key: 'j', claim: randomUUID() };
      await b.query(batch, [...claims([k]), ...answers([])]);
      await a.query('BEGIN');
      await a.query(batch, [...claims([j]), ...answers([])]);
      const bCall = b.query(batch, [...claims([{ key: 'j', claim: randomUUID() }]), ...answers([k])]);
      await new Promise((r) => setTimeout(r, 300));
      const aAgain = await a.query(batch, [...claims([{ key: 'k', claim: randomUUID() }]), ...answers([])]);
      await a.query('COMMIT');
      expect(aAgain.rows).toEqual([{ o_claimed: false, o_state: 'running' }]);
      expect((await bCall).rows).toEqual([{ o_claimed: false, o_state: 'running' }]);
      const [stored] = (await a.query("SELECT state FROM idempotency_keys WHERE key = 'k'")).rows;
      expect(stored).toEqual({ state: 'done' });
    } finally {
      await a.end();
      await b.end();
      await db.drop();
    }
  });
});
