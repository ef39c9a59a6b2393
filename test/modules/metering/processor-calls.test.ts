import { describe, expect, it } from 'vitest';
import { instrumentProcessors } from '../../../src/modules/metering/processor-calls.ts';
import { adjustmentOutcome } from '../../../src/modules/metering/metered-services.ts';
import { ProcessorCallNotes, ServiceMetrics } from '../../../src/modules/metering/service-metrics.ts';
import { Metrics } from '../../../src/platform/metrics/metrics.ts';
import { type ProcessorAdapter, ProcessorNotReachedError } from '../../../src/processors/processor.ts';
import { ProcessorRegistry } from '../../../src/processors/registry.ts';

const followUp = { reference: 'r', originalTransactionId: 't', amountCents: 100, kind: 'card' as const };

/** An adapter that declines sales, is never reached for refunds, fails voids and never answers a settlement. */
const bank: ProcessorAdapter = {
  name: 'bank',
  capabilities: { paymentMethodTypes: [1, 2, 3, 4, 5, 6, 7], achCountries: ['US'], voidNeedsOriginalAmount: false, partialRefunds: false, achRefundNeedsAccount: false, settlesItself: false, notFoundIsFinalAfterMs: 60_000 },
  lookup: async () => ({ found: false, detail: 'no such transaction' }),
  sale: async () => ({ approved: false, responseCode: '12', message: 'Declined', processorMessage: 'Declined', authCode: null, transactionId: 'x1', avsStreetStatus: null, avsZipStatus: null, avsResponse: null, cvvResponse: null, isSurchargeEligible: null }),
  refund: async () => {
    throw new ProcessorNotReachedError();
  },
  void: async () => {
    throw new Error('broken answer');
  },
  settle: () => new Promise(() => {}),
};

async function valueOf(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  return metric.values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((n, v) => n + v.value, 0);
}

describe('processor calls, instrumented', () => {
  it('times every call, counts those without an answer by reason, and notes the answer for the request by its reference', async () => {
    const metrics = new Metrics({ processMetrics: false });
    const service = new ServiceMetrics(metrics);
    const registry = instrumentProcessors(new ProcessorRegistry([bank], { timeoutMs: 50 }), { metrics: service });
    const adapter = registry.get('bank');
    expect(registry.get('bank')).toBe(adapter);
    const notes = service.processorCallNotes;
    await adapter.sale({ reference: 'p1', amountCents: 100, currency: 'USD', billing: { name: 'A' } });
    await expect(adapter.refund({ ...followUp, reference: 'r1' })).rejects.toThrow(ProcessorNotReachedError);
    await expect(adapter.void({ ...followUp, reference: 'v1' })).rejects.toThrow('broken answer');
    await expect(adapter.settle({ batchId: 'b', processorId: 'p', cutoffAt: new Date(), transactionIds: [], totals: [] })).rejects.toThrow(/did not answer/);
    expect(notes.take('p1')).toEqual({ adapter: 'bank', answer: 'declined' });
    expect(notes.take('r1')).toEqual({ adapter: 'bank', answer: 'not_reached' });
    expect(notes.take('v1')).toEqual({ adapter: 'bank', answer: 'failed' });
    // Taken once; a settlement has no request to take a note.
    expect(notes.take('p1')).toBeUndefined();
    expect(notes.size).toBe(0);
    const errors = (operation: string, reason: string) => valueOf(metrics, 'processor_call_errors_total', { adapter: 'bank', operation, reason });
    expect(await errors('sale', 'error')).toBe(0);
    expect(await errors('refund', 'not_reached')).toBe(1);
    expect(await errors('void', 'error')).toBe(1);
    expect(await errors('settle', 'timeout')).toBe(1);
    for (const operation of ['sale', 'refund', 'void', 'settle']) {
      expect(await valueOf(metrics, 'processor_call_duration_seconds', { adapter: 'bank', operation, le: '+Inf' })).toBe(1);
    }
  });

  it('keeps at most 1,000 notes nobody took, dropping the oldest', () => {
    const notes = new ProcessorCallNotes();
    for (let i = 0; i < ProcessorCallNotes.LIMIT + 5; i++) notes.note(`ref-${i}`, { adapter: 'bank' });
    expect(notes.size).toBe(ProcessorCallNotes.LIMIT);
    expect(notes.take('ref-4')).toBeUndefined();
    expect(notes.take('ref-5')).toEqual({ adapter: 'bank' });
  });

  it('leaves the registry as it is when metrics and traces are both off', () => {
    const registry = new ProcessorRegistry([bank]);
    const get = registry.get;
    expect(instrumentProcessors(registry, {})).toBe(registry);
    expect(registry.get).toBe(get);
    expect(registry.get('bank')).toBe(bank);
  });
});

describe('a refund or void outcome', () => {
  const outcome = (successful: boolean, responseCode: string) => ({ successful, responseCode });
  it('is read from the answer and from what the processor call did', () => {
    expect(adjustmentOutcome(outcome(true, '0'), { adapter: 'bank', answer: 'approved' })).toBe('approved');
    expect(adjustmentOutcome(outcome(false, '-100'), undefined)).toBe('refused');
    expect(adjustmentOutcome(outcome(false, '12'), { adapter: 'bank', answer: 'declined' })).toBe('declined');
    expect(adjustmentOutcome(outcome(false, '99'), { adapter: 'bank', answer: 'not_reached' })).toBe('not_processed');
    expect(adjustmentOutcome(outcome(false, '99'), { adapter: 'bank', answer: 'failed' })).toBe('held');
    // Approved by the processor, not yet recorded: held until it is.
    expect(adjustmentOutcome(outcome(false, '99'), { adapter: 'bank', answer: 'approved' })).toBe('held');
  });
});
