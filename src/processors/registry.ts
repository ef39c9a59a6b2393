import { ProcessorTimeoutError, type ProcessorAdapter } from './processor.ts';
import { SimulatorProcessor } from './simulator.ts';

/**
 * Adapters by the name stored on a processor row (`processors.adapter`), each call with a
 * deadline (`PROCESSOR_TIMEOUT`): past it, the call throws ProcessorTimeoutError and its outcome
 * counts as unknown, as any failure after sending does (a payment is held, a refund's or void's
 * claim kept, a settlement given back to be tried again under the same reference). A stuck
 * processor otherwise held each request for as long as the client waited and left a Pending row
 * for every client that gave up (a slow-processor audit). A late answer is dropped.
 */
export class ProcessorRegistry {
  readonly #adapters = new Map<string, ProcessorAdapter>();
  /** The deadline of a processor call (PROCESSOR_TIMEOUT), when one is set. */
  readonly timeoutMs: number | undefined;

  constructor(adapters: ProcessorAdapter[], options: { timeoutMs?: number } = {}) {
    this.timeoutMs = options.timeoutMs || undefined;
    for (const a of adapters) this.#adapters.set(a.name, options.timeoutMs ? withDeadline(a, options.timeoutMs) : a);
  }

  get(name: string): ProcessorAdapter {
    const adapter = this.#adapters.get(name);
    if (!adapter) throw new Error(`no processor adapter named "${name}"`);
    return adapter;
  }
}

export function defaultProcessors(options: { simulatorLatencyMs: number; timeoutMs: number }): ProcessorRegistry {
  return new ProcessorRegistry([new SimulatorProcessor({ latencyMs: options.simulatorLatencyMs })], { timeoutMs: options.timeoutMs });
}

/** The adapter with every call raced against a timer of `ms`. */
function withDeadline(adapter: ProcessorAdapter, ms: number): ProcessorAdapter {
  const within = <T>(what: string, call: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new ProcessorTimeoutError(`the processor did not answer the ${what} within ${ms / 1000} s`)), ms);
    });
    return Promise.race([call, late]).finally(() => clearTimeout(timer));
  };
  return {
    name: adapter.name,
    sale: (request) => within('sale', adapter.sale(request)),
    void: (request) => within('void', adapter.void(request)),
    refund: (request) => within('refund', adapter.refund(request)),
    settle: (request) => within('settlement', adapter.settle(request)),
  };
}
