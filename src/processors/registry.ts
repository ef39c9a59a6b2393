import { type CallOptions, ProcessorTimeoutError, type ProcessorAdapter, type ProcessorCapabilities } from './processor.ts';
import { SimulatorProcessor } from './simulator.ts';
import type { SimulatorLedger } from './simulator-ledger.ts';
import { type AuthorizeNetAccounts, AuthorizeNetProcessor } from './authorizenet/adapter.ts';

/**
 * Adapters by the name stored on a processor row (`processors.adapter`), each call with a
 * deadline (`PROCESSOR_TIMEOUT`): past it, the call's signal is aborted (the adapter stops its
 * request) and the call throws ProcessorTimeoutError; its outcome counts as unknown, as any
 * failure after sending does (a payment is held, a refund's or void's claim kept, a settlement
 * given back to be tried again under the same reference). A stuck processor otherwise held each
 * request for as long as the client waited and left a Pending row for every client that gave up
 * (a slow-processor audit). A late answer is dropped.
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

  /** The adapters' names (what `processors.adapter` may hold). */
  names(): string[] {
    return [...this.#adapters.keys()];
  }

  capabilities(name: string): ProcessorCapabilities {
    return this.get(name).capabilities;
  }

  /**
   * The adapter of one of our processors (merchant accounts): every request carries its id, so an
   * adapter with credentials per processor knows whose to use. The adapter's methods are read at
   * each call, so a test that replaces one on the registry's adapter is seen here too.
   */
  forProcessor(processor: { id: string; adapter: string }): ProcessorAdapter {
    const adapter = this.get(processor.adapter);
    const processorId = processor.id;
    return {
      name: adapter.name,
      capabilities: adapter.capabilities,
      sale: (request, options) => adapter.sale({ ...request, processorId }, options),
      void: (request, options) => adapter.void({ ...request, processorId }, options),
      refund: (request, options) => adapter.refund({ ...request, processorId }, options),
      settle: (request, options) => adapter.settle({ ...request, processorId }, options),
      lookup: (request, options) => adapter.lookup({ ...request, processorId }, options),
      ...(adapter.settlementReport ? { settlementReport: (request, options) => adapter.settlementReport!({ ...request, processorId }, options) } : {}),
      ...(adapter.checkCredentials ? { checkCredentials: (_request, options) => adapter.checkCredentials!({ processorId }, options) } : {}),
    };
  }
}

export interface DefaultProcessorOptions {
  simulatorLatencyMs: number;
  timeoutMs: number;
  /** The simulator's record of what it did, for its look-ups (none: it cannot look anything up). */
  simulatorLedger?: SimulatorLedger;
  /** Authorize.Net: where each processor's credentials come from, and the sandbox endpoint. */
  authorizeNet?: { accounts: AuthorizeNetAccounts; sandboxUrl?: string };
}

export function defaultProcessors(options: DefaultProcessorOptions): ProcessorRegistry {
  const adapters: ProcessorAdapter[] = [new SimulatorProcessor({ latencyMs: options.simulatorLatencyMs, ledger: options.simulatorLedger })];
  if (options.authorizeNet) adapters.push(new AuthorizeNetProcessor(options.authorizeNet));
  return new ProcessorRegistry(adapters, { timeoutMs: options.timeoutMs });
}

/**
 * The adapter with every call given a signal that aborts at `ms`, and raced against that moment
 * (an adapter that ignores its signal is not waited for either).
 */
function withDeadline(adapter: ProcessorAdapter, ms: number): ProcessorAdapter {
  const within = <T>(what: string, call: (options: CallOptions) => Promise<T>, options: CallOptions | undefined): Promise<T> => {
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const error = new ProcessorTimeoutError(`the processor did not answer the ${what} within ${ms / 1000} s`);
        deadline.abort(error);
        reject(error);
      }, ms);
    });
    const signal = options?.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
    let answer: Promise<T>;
    try {
      answer = call({ ...options, signal });
    } catch (err) {
      answer = Promise.reject(err);
    }
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  };
  return {
    name: adapter.name,
    capabilities: adapter.capabilities,
    sale: (request, options) => within('sale', (o) => adapter.sale(request, o), options),
    void: (request, options) => within('void', (o) => adapter.void(request, o), options),
    refund: (request, options) => within('refund', (o) => adapter.refund(request, o), options),
    settle: (request, options) => within('settlement', (o) => adapter.settle(request, o), options),
    lookup: (request, options) => within('look-up', (o) => adapter.lookup(request, o), options),
    ...(adapter.settlementReport ? { settlementReport: (request, options) => within('settlement report', (o) => adapter.settlementReport!(request, o), options) } : {}),
    ...(adapter.checkCredentials ? { checkCredentials: (request, options) => within('credentials check', (o) => adapter.checkCredentials!(request, o), options) } : {}),
  };
}
