import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { PaymentResult, ProcessStatus } from '../../src/domain/payment-status.ts';
import { type ProcessorAdapter, ProcessorTimeoutError } from '../../src/processors/processor.ts';
import { ProcessorRegistry } from '../../src/processors/registry.ts';
import { SIMULATOR_CAPABILITIES } from '../../src/processors/simulator.ts';
import { UNKNOWN_OUTCOME_MESSAGE } from '../../src/modules/payments/payment-service.ts';
import { type TestContext, createTestContext } from '../helpers/context.ts';

/** Every processor call has a deadline (PROCESSOR_TIMEOUT): past it, the outcome counts as unknown. */

const never = () => new Promise<never>(() => {});
const stuck: ProcessorAdapter = { name: 'stuck', capabilities: SIMULATOR_CAPABILITIES, sale: never, void: never, refund: never, settle: never, lookup: never };

describe('the deadline on processor calls', () => {
  it('ends each kind of call that does not answer in time with ProcessorTimeoutError', async () => {
    const adapter = new ProcessorRegistry([stuck], { timeoutMs: 30 }).get('stuck');
    const request = {} as never;
    for (const call of [adapter.sale(request), adapter.void(request), adapter.refund(request), adapter.settle(request)]) {
      await expect(call).rejects.toThrow(ProcessorTimeoutError);
    }
  });

  it('passes an answer in time through, and its failure as it is', async () => {
    const answering: ProcessorAdapter = {
      ...stuck,
      name: 'answering',
      sale: async () => ({ approved: true }) as never,
      void: async () => {
        throw new Error('refused by the bank');
      },
    };
    const adapter = new ProcessorRegistry([answering], { timeoutMs: 1000 }).get('answering');
    await expect(adapter.sale({} as never)).resolves.toEqual({ approved: true });
    await expect(adapter.void({} as never)).rejects.toThrow('refused by the bank');
  });

  it("aborts the call's signal at the deadline, so that the adapter stops its request", async () => {
    const signals: AbortSignal[] = [];
    const listening: ProcessorAdapter = {
      ...stuck,
      name: 'listening',
      sale: (_request, options) => {
        signals.push(options!.signal!);
        return new Promise((_resolve, reject) => options!.signal!.addEventListener('abort', () => reject(options!.signal!.reason)));
      },
      lookup: (_request, options) => {
        signals.push(options!.signal!);
        return never();
      },
    };
    const adapter = new ProcessorRegistry([listening], { timeoutMs: 30 }).get('listening');
    await expect(adapter.sale({} as never)).rejects.toThrow(ProcessorTimeoutError);
    await expect(adapter.lookup({} as never)).rejects.toThrow(ProcessorTimeoutError);
    expect(signals.map((s) => [s.aborted, (s.reason as Error).name])).toEqual([
      [true, 'ProcessorTimeoutError'],
      [true, 'ProcessorTimeoutError'],
    ]);
    // The caller's own signal is passed on with the deadline's: either ends the call.
    const caller = new AbortController();
    const slow = new ProcessorRegistry([listening], { timeoutMs: 60_000 }).get('listening');
    const pending = slow.sale({} as never, { signal: caller.signal });
    caller.abort(new Error('the client went away'));
    await expect(pending).rejects.toThrow('the client went away');
  });

  it("binds a processor: every request carries its id, and the adapter's methods are read at each call", async () => {
    const seen: unknown[] = [];
    const recording: ProcessorAdapter = {
      ...stuck,
      name: 'recording',
      sale: async (request) => (seen.push(request.processorId), { approved: true }) as never,
      refund: async (request) => (seen.push(request.processorId), {}) as never,
      lookup: async (request) => (seen.push(request.processorId), { found: false, detail: '' }),
    };
    const registry = new ProcessorRegistry([recording], { timeoutMs: 1000 });
    const bound = registry.forProcessor({ id: 'proc-1', adapter: 'recording' });
    await bound.sale({ reference: 'r' } as never);
    await bound.refund({ reference: 'r' } as never);
    await bound.lookup({ reference: 'r' } as never);
    expect(seen).toEqual(['proc-1', 'proc-1', 'proc-1']);
    registry.get('recording').sale = async () => ({ approved: false }) as never;
    await expect(bound.sale({} as never)).resolves.toEqual({ approved: false });
    expect(bound.capabilities).toBe(SIMULATOR_CAPABILITIES);
    expect(() => registry.forProcessor({ id: 'x', adapter: 'nope' })).toThrow(/no processor adapter named "nope"/);
  });

  it('is PROCESSOR_TIMEOUT seconds, 20 by default, 1 to 600', () => {
    expect(loadConfig({}).processorTimeoutMs).toBe(20_000);
    expect(loadConfig({ PROCESSOR_TIMEOUT: '5' }).processorTimeoutMs).toBe(5_000);
    expect(() => loadConfig({ PROCESSOR_TIMEOUT: '0' })).toThrow(/PROCESSOR_TIMEOUT/);
    expect(() => loadConfig({ PROCESSOR_TIMEOUT: '601' })).toThrow(/PROCESSOR_TIMEOUT/);
  });
});

describe('a payment whose processor does not answer in time', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ config: { simulatorLatencyMs: 2_000, processorTimeoutMs: 100 } });
  });
  afterAll(() => ctx.close());

  it('is answered at the deadline, held as Processing: the partner is told not to pay again', async () => {
    const started = Date.now();
    const res = await ctx.as(ctx.nonProfit, {
      method: 'POST',
      url: '/api/payment',
      payload: { CardNum: '4242424242424242', ExpMonth: '12', ExpYear: '35', CVNum: '123', NameOnCard: 'Ada', Email: 'ada@example.org', IpAddress: '203.0.113.9', TranId: 'deadline-1', Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00' }] },
    });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ Successful: false, PaymentResult: PaymentResult.Processing, ProcessStatus: ProcessStatus.NotProcessed, ResponseCode: '99', Message: UNKNOWN_OUTCOME_MESSAGE });
  });
});
