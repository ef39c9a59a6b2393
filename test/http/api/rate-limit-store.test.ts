import { describe, expect, it } from 'vitest';
import { MonotonicRateLimitStore } from '../../../src/http/api/rate-limit-store.ts';

describe('the rate limit store', () => {
  const incr = (store: MonotonicRateLimitStore, key: string) =>
    new Promise<{ current: number; ttl: number }>((resolve, reject) => store.incr(key, (err, res) => (err ? reject(err) : resolve(res!)), 60_000, 3));

  it('counts each key in a fixed window of the monotonic clock, then starts a new one', async () => {
    let now = 1_000;
    const store = new MonotonicRateLimitStore(undefined, () => now);
    expect(await incr(store, 'a')).toEqual({ current: 1, ttl: 60_000 });
    now += 20_000;
    expect(await incr(store, 'a')).toEqual({ current: 2, ttl: 40_000 });
    expect(await incr(store, 'b')).toEqual({ current: 1, ttl: 60_000 });
    now += 40_000;
    expect(await incr(store, 'a')).toEqual({ current: 1, ttl: 60_000 });
  });

  it('gives each route its own counts', async () => {
    const store = new MonotonicRateLimitStore(undefined, () => 0);
    const route = store.child() as MonotonicRateLimitStore;
    await incr(store, 'a');
    expect(await incr(route, 'a')).toEqual({ current: 1, ttl: 60_000 });
  });

  it('reads a window without counting, and refuses window kinds it does not count', async () => {
    let now = 0;
    const store = new MonotonicRateLimitStore(undefined, () => now);
    const read = () => new Promise((resolve) => store.read('a', (_err, res) => resolve(res), 60_000));
    expect(await read()).toEqual({ current: 0, ttl: 0 });
    await incr(store, 'a');
    now += 10_000;
    expect(await read()).toEqual({ current: 1, ttl: 50_000 });
    expect(await read()).toEqual({ current: 1, ttl: 50_000 });
    expect(() => store.child({ continueExceeding: true })).toThrow(/fixed windows/);
    expect(() => store.child({ exponentialBackoff: true })).toThrow(/fixed windows/);
  });
});
