import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import type { SessionKind } from '../../../src/modules/partners/session-repository.ts';
import { SessionStore } from '../../../src/modules/partners/session-store.ts';

/** The memory both kinds of session share, against a fake table: no database. */

interface Session {
  owner: string;
  expiresAt: Date;
}

function setUp(rows: Record<string, Session>) {
  const clock = new ManualClock('2026-11-21T12:00:00.000Z');
  const reads: string[] = [];
  const revoked: [SessionKind, string][] = [];
  const purged: [SessionKind, Date][] = [];
  const store = new SessionStore<Session>({
    repository: {
      revoke: async (kind, owner) => {
        revoked.push([kind, owner]);
        for (const [hash, row] of Object.entries(rows)) if (row.owner === owner) delete rows[hash];
      },
      deleteExpiredBefore: async (kind, cutoff) => {
        purged.push([kind, cutoff]);
        return 0;
      },
    },
    kind: 'access-token',
    clock,
    recheckMs: 60_000,
    ownerOf: (s) => s.owner,
    read: async (hash) => {
      reads.push(hash);
      return rows[hash];
    },
  });
  return { clock, store, reads, revoked, purged };
}

const at = (iso: string) => new Date(iso);

describe('SessionStore', () => {
  it('reads a session once, then trusts its memory for recheckMs', async () => {
    const { clock, store, reads } = setUp({ h1: { owner: 'p1', expiresAt: at('2026-11-21T17:00:00Z') } });
    expect(await store.find('h1')).toMatchObject({ owner: 'p1' });
    clock.advance(59_999);
    expect(await store.find('h1')).toMatchObject({ owner: 'p1' });
    expect(reads).toEqual(['h1']);
    clock.advance(1);
    await store.find('h1');
    expect(reads).toEqual(['h1', 'h1']);
  });

  it('answers an expired session as none, from memory too', async () => {
    const { clock, store, reads } = setUp({ h1: { owner: 'p1', expiresAt: at('2026-11-21T12:00:30Z') } });
    expect(await store.find('h1')).toBeDefined();
    clock.advance(30_000);
    expect(await store.find('h1')).toBeUndefined();
    expect(reads).toEqual(['h1']);
  });

  it('never remembers an unknown session', async () => {
    const rows: Record<string, Session> = {};
    const { store, reads } = setUp(rows);
    expect(await store.find('h1')).toBeUndefined();
    rows.h1 = { owner: 'p1', expiresAt: at('2026-11-21T17:00:00Z') };
    expect(await store.find('h1')).toBeDefined();
    expect(reads).toEqual(['h1', 'h1']);
  });

  it("forgets a revoked owner's sessions at once, and no one else's", async () => {
    const { store, reads, revoked } = setUp({
      h1: { owner: 'p1', expiresAt: at('2026-11-21T17:00:00Z') },
      h2: { owner: 'p2', expiresAt: at('2026-11-21T17:00:00Z') },
    });
    await store.find('h1');
    await store.find('h2');
    await store.revoke('p1');
    expect(revoked).toEqual([['access-token', 'p1']]);
    expect(await store.find('h1')).toBeUndefined();
    expect(await store.find('h2')).toBeDefined();
    expect(reads).toEqual(['h1', 'h2', 'h1']);
  });

  it('reads again a session remembered "after" now (the clock was stepped back)', async () => {
    const { clock, store, reads } = setUp({ h1: { owner: 'p1', expiresAt: at('2026-11-21T17:00:00Z') } });
    await store.find('h1');
    clock.advance(-1);
    await store.find('h1');
    expect(reads).toEqual(['h1', 'h1']);
  });

  it('purges the sessions that expired more than a day ago', async () => {
    const { store, purged } = setUp({});
    await store.purgeExpired();
    expect(purged).toEqual([['access-token', at('2026-11-20T12:00:00Z')]]);
  });
});
