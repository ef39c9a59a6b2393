import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/platform/database/database.ts';
import { IdempotencyRepository, type NewClaim } from '../../../src/modules/idempotency/idempotency-repository.ts';
import { freshStore } from '../../helpers/store.ts';

/**
 * Claims and answers share one call at a time: those of one turn of the event loop go in one
 * batch, whichever of the two they are.
 */
let store: Store;
let repository: IdempotencyRepository;
beforeAll(async () => {
  store = await freshStore();
  repository = new IdempotencyRepository(store.sql);
});
afterAll(() => store.close());

const partnerId = randomUUID();
const claimOf = (key: string): NewClaim => {
  const now = new Date('2026-11-29T12:00:00Z');
  return { partnerId, key, claim: randomUUID(), fingerprint: `f-${key}`, createdAt: now, expiresAt: new Date(now.getTime() + 86_400_000), leaseUntil: new Date(now.getTime() + 40_000) };
};
/** Bodies as answers hold them: quotes, backslashes, braces and commas (an array's syntax), letters beyond ASCII. */
const answer = (n: number) => ({ status: 201, contentType: 'application/json; charset=utf-8', body: `{"n":${n},"Message":"a \\"quoted\\" word, a \\\\ and {braces}: Zoë ✓"}` });

async function statementsDuring(run: () => Promise<unknown>): Promise<number> {
  const texts: string[] = [];
  const query = store.sql.query.bind(store.sql);
  store.sql.query = ((text: string, ...rest: unknown[]) => {
    texts.push(text);
    return (query as (...a: unknown[]) => unknown)(text, ...rest);
  }) as typeof store.sql.query;
  try {
    await run();
  } finally {
    store.sql.query = query;
  }
  return texts.length;
}

describe('the batch statement', () => {
  it('claims and answers that arrive in one turn go in one statement, those that arrive later in the next, and each takes effect', async () => {
    const first = claimOf('a');
    expect(await repository.claim(first)).toEqual({ claimed: true });
    const keys = ['b', 'c', 'd'].map(claimOf);
    const count = await statementsDuring(async () => {
      const results = await Promise.all([repository.finish(partnerId, 'a', first.claim, answer(1)), ...keys.map((k) => repository.claim(k))]);
      expect(results.slice(1)).toEqual(keys.map(() => ({ claimed: true })));
    });
    expect(count).toBe(1);
    // One answer, its statement sent; the other two with a claim, a turn later: a second statement.
    const g = claimOf('g');
    const later = await statementsDuring(async () => {
      const sent = repository.finish(partnerId, keys[0]!.key, keys[0]!.claim, answer(2));
      await new Promise((r) => setImmediate(r));
      await Promise.all([sent, ...keys.slice(1).map((k, i) => repository.finish(partnerId, k.key, k.claim, answer(i + 3))), repository.claim(g)]);
    });
    expect(later).toBe(2);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) {
      const again = await repository.claim(claimOf(key));
      expect(again).toMatchObject({ claimed: false, existing: { fingerprint: `f-${key}`, state: 'done', answer: answer(i + 1) } });
    }
  });

  it('a key answered in the batch that a new request claims it in is found running (claims go first), then answered', async () => {
    const held = claimOf('e');
    await repository.claim(held);
    const blocker = claimOf('f');
    const [, , found] = await Promise.all([repository.claim(blocker), repository.finish(partnerId, 'e', held.claim, answer(5)), repository.claim(claimOf('e'))]);
    expect(found).toMatchObject({ claimed: false, existing: { state: 'running' } });
    expect(await repository.claim(claimOf('e'))).toMatchObject({ claimed: false, existing: { state: 'done', answer: answer(5) } });
  });

  it('each answer of a batch lands on its own claim\'s row; one whose claim lost the key (taken over once expired) lands nowhere', async () => {
    const [g, h, i] = [claimOf('late-g'), claimOf('late-h'), claimOf('late-i')];
    await Promise.all([g, h, i].map((c) => repository.claim(c)));
    const later = new Date(h.expiresAt.getTime() + 1000);
    const taker = { ...claimOf('late-h'), createdAt: later, expiresAt: new Date(later.getTime() + 86_400_000), leaseUntil: new Date(later.getTime() + 40_000) };
    expect(await repository.takeOver(taker)).toBe(true);
    await Promise.all([repository.finish(partnerId, i.key, i.claim, answer(9)), repository.finish(partnerId, h.key, h.claim, answer(8)), repository.finish(partnerId, g.key, g.claim, answer(7))]);
    const found = async (c: NewClaim) => ((await repository.claim({ ...c, claim: randomUUID() })) as { existing: { state: string; answer?: unknown } }).existing;
    expect(await found(g)).toMatchObject({ state: 'done', answer: answer(7) });
    expect(await found(i)).toMatchObject({ state: 'done', answer: answer(9) });
    expect(await found(h)).toMatchObject({ state: 'running', answer: undefined });
    await repository.finish(partnerId, h.key, taker.claim, answer(10));
    expect(await found(h)).toMatchObject({ state: 'done', answer: answer(10) });
  });
});
