import type { Tracing } from '../../platform/tracing.ts';
import { type ProcessorAdapter, ProcessorNotReachedError, ProcessorTimeoutError } from '../../processors/processor.ts';
import type { ProcessorRegistry } from '../../processors/registry.ts';
import type { ProcessorCallNote, ServiceMetrics } from './service-metrics.ts';

type Operation = 'sale' | 'void' | 'refund' | 'settle';
const OPERATIONS: Operation[] = ['sale', 'void', 'refund', 'settle'];

function failureReason(err: unknown): 'timeout' | 'not_reached' | 'error' {
  if (err instanceof ProcessorTimeoutError) return 'timeout';
  if (err instanceof ProcessorNotReachedError) return 'not_reached';
  return 'error';
}

/**
 * Each adapter the registry holds, as its `get` hands it out, wrapped: every call timed and its
 * failures counted by adapter and operation (metrics), in a span of its own (traces, with the
 * adapter and the operation, never what is sent: a card, an account, an amount), and noted by its
 * reference for the request that made it (ProcessorCallNotes). The registry itself is left as it
 * is (another module's).
 */
export function instrumentProcessors(registry: ProcessorRegistry, observers: { metrics?: ServiceMetrics; tracing?: Tracing }): ProcessorRegistry {
  const { metrics, tracing } = observers;
  if (!metrics && !tracing) return registry;
  const get = registry.get.bind(registry);
  const wrapped = new Map<string, ProcessorAdapter>();
  registry.get = (name: string) => {
    let adapter = wrapped.get(name);
    if (!adapter) {
      adapter = instrumentAdapter(get(name), metrics, tracing);
      wrapped.set(name, adapter);
    }
    return adapter;
  };
  return registry;
}

function instrumentAdapter(adapter: ProcessorAdapter, metrics: ServiceMetrics | undefined, tracing: Tracing | undefined): ProcessorAdapter {
  const name = adapter.name;
  // What is not a call to meter passes through: the declared capabilities, look-ups, settlement reports, credential checks.
  const wrapped: Record<string, unknown> = {
    name,
    capabilities: adapter.capabilities,
    lookup: adapter.lookup.bind(adapter),
    ...(adapter.settlementReport ? { settlementReport: adapter.settlementReport.bind(adapter) } : {}),
    ...(adapter.checkCredentials ? { checkCredentials: adapter.checkCredentials.bind(adapter) } : {}),
  };
  for (const operation of OPERATIONS) {
    const call = (adapter[operation] as (request: unknown, options?: unknown) => Promise<{ approved?: boolean; accepted?: boolean }>).bind(adapter);
    const timer = metrics?.processorCalls.labels({ adapter: name, operation });
    const timed = async (request: unknown, options?: unknown) => {
      // Sales, voids and refunds carry the reference their request's decorator takes the note by.
      const reference = (request as { reference?: string }).reference;
      const note: ProcessorCallNote | undefined = metrics && reference !== undefined ? { adapter: name } : undefined;
      if (note) metrics!.processorCallNotes.note(reference!, note);
      const started = performance.now();
      try {
        const answer = await call(request, options);
        if (note) note.answer = answer.approved === true || answer.accepted === true ? 'approved' : 'declined';
        return answer;
      } catch (err) {
        const reason = failureReason(err);
        if (note) note.answer = reason === 'not_reached' ? 'not_reached' : 'failed';
        metrics?.processorErrors.inc({ adapter: name, operation, reason });
        throw err;
      } finally {
        timer?.observe((performance.now() - started) / 1000);
      }
    };
    wrapped[operation] = tracing
      ? (request: unknown, options?: unknown) => tracing.span(`processor ${operation}`, { 'processor.adapter': name, 'processor.operation': operation }, () => timed(request, options))
      : timed;
  }
  return wrapped as unknown as ProcessorAdapter;
}
