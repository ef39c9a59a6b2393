import type { ProcessorAdapter } from './processor.ts';
import { SimulatorProcessor } from './simulator.ts';

/** Adapters by the name stored on a processor row (`processors.adapter`). */
export class ProcessorRegistry {
  readonly #adapters = new Map<string, ProcessorAdapter>();

  constructor(adapters: ProcessorAdapter[]) {
    for (const a of adapters) this.#adapters.set(a.name, a);
  }

  get(name: string): ProcessorAdapter {
    const adapter = this.#adapters.get(name);
    if (!adapter) throw new Error(`no processor adapter named "${name}"`);
    return adapter;
  }
}

export function defaultProcessors(options: { simulatorLatencyMs: number }): ProcessorRegistry {
  return new ProcessorRegistry([new SimulatorProcessor({ latencyMs: options.simulatorLatencyMs })]);
}
