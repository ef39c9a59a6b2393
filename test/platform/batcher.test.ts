import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/platform/batcher.ts';

describe('Batcher', () => {
  it('runs an item alone at once, and those that arrive while slots are busy together next', async () => {
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
    const first = batcher.add(1);
    expect(batches).toEqual([[1]]);
    const rest = [batcher.add(2), batcher.add(3), batcher.add(4)];
    expect(batches).toEqual([[1]]);
    gates.shift()!();
    expect(await first).toBe(10);
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1], [2, 3, 4]]);
    gates.shift()!();
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
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
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    // [1] alone, then [2, 3] (failed), then [4, 5].
    expect(calls).toBe(3);
  });
});
