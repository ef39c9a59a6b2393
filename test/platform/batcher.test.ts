import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/platform/batcher.ts';

describe('Batcher', () => {
  it('runs the items of one turn of the event loop together, and those that arrive while slots are busy together next', async () => {
    const batches: number[][] = [];
    const gates: (() => void)[] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        batches.push(items);
        await new Promise<void>((r) => gates.push(r));
        return items.map((i) => i * 10);
      },
      { slots: 1 },
    );
    const turn = () => new Promise((r) => setImmediate(r));
    // Two requests resuming in one turn, each in a promise chain of its own (as each request's
    // statement resolves in turn on a database that runs on this thread): one batch.
    const first = [batcher.add(1), Promise.resolve().then(() => batcher.add(2))];
    expect(batches).toEqual([]);
    await turn();
    expect(batches).toEqual([[1, 2]]);
    const rest = [batcher.add(3), batcher.add(4)];
    await turn();
    expect(batches).toEqual([[1, 2]]);
    gates.shift()!();
    expect(await Promise.all(first)).toEqual([10, 20]);
    await turn();
    expect(batches).toEqual([[1, 2], [3, 4]]);
    gates.shift()!();
    expect(await Promise.all(rest)).toEqual([30, 40]);
    // Alone, an item runs at the end of its turn.
    const alone = batcher.add(5);
    await turn();
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    gates.shift()!();
    expect(await alone).toBe(50);
  });

  it('keeps batches to maxBatch and fails every item of a failed batch, and only those', async () => {
    let calls = 0;
    const batcher = new Batcher<number, number>(
      async (items) => {
        calls++;
        if (items.includes(3)) throw new Error('batch failed');
        return items;
      },
      { slots: 1, maxBatch: 2 },
    );
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => batcher.add(i)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
    // Added in one turn: [1, 2], then [3, 4] (failed), then [5].
    expect(calls).toBe(3);
  });
});
