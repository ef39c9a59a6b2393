import type { Clock } from '../../platform/clock.ts';
import { OperatorInputError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logging.ts';
import type { PendingWrites } from '../../platform/pending-writes.ts';
import { resolveHeldOutcome } from '../../processors/held-outcome.ts';
import type { ProcessorRegistry } from '../../processors/registry.ts';
import type { HeldOutcomeRepository } from './held-outcome-repository.ts';
import type { PendingPaymentService } from './held-outcome-service.ts';

/** How many held items of each kind one run asks about. */
const BATCH = 100;

/**
 * Payments, refunds and voids held because their processor's answer was lost (a timeout, a stop
 * between asking and recording), resolved from the processor's own records: a background job
 * asks each processor about the items older than the time a request can still be in flight, and
 * records what it says (the same records `payments pending resolve` makes by hand). What the
 * processor cannot tell is left for an operator, said once per item in the log. Items whose
 * outcome this process still holds to write (PendingWrites) are left to that write.
 */
export class HeldOutcomeResolution {
  readonly #repository: HeldOutcomeRepository;
  readonly #pending: PendingPaymentService;
  readonly #adapters: ProcessorRegistry;
  readonly #pendingWrites: PendingWrites;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #inFlightMs: number;
  readonly #toldOperator = new Set<string>();

  constructor(deps: {
    repository: HeldOutcomeRepository;
    pending: PendingPaymentService;
    adapters: ProcessorRegistry;
    pendingWrites: PendingWrites;
    clock: Clock;
    log: Logger;
    /** How long a request may still be waiting for its processor (its deadline and a margin for its writes). */
    inFlightMs: number;
  }) {
    this.#repository = deps.repository;
    this.#pending = deps.pending;
    this.#adapters = deps.adapters;
    this.#pendingWrites = deps.pendingWrites;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#inFlightMs = deps.inFlightMs;
  }

  /** One run: returns how many items were recorded, are waiting, and are the operator's. */
  async run(): Promise<{ recorded: number; waiting: number; forOperator: number }> {
    const now = this.#clock.now();
    const held = await this.#repository.held(new Date(now.getTime() - this.#inFlightMs).toISOString(), BATCH);
    const counts = { recorded: 0, waiting: 0, forOperator: 0 };
    for (const row of held) {
      if (this.#pendingWrites.has(row.id)) continue;
      const adapter = this.#adapters.forProcessor({ id: row.processor_id, adapter: row.adapter });
      const item = { kind: row.kind, reference: row.id, sentAt: new Date(row.sent_at), amountCents: Number(row.amount_cents), originalTransactionId: row.original_transaction_id };
      const decision = await resolveHeldOutcome(adapter, item, this.#clock.now());
      if (decision.action === 'wait') {
        counts.waiting++;
        continue;
      }
      if (decision.action === 'operator') {
        counts.forOperator++;
        if (!this.#toldOperator.has(row.id)) {
          this.#toldOperator.add(row.id);
          this.#log.warn({ kind: row.kind, reference: row.id, detail: decision.detail }, 'held outcome: the processor cannot settle it; resolve it with payments pending resolve');
        }
        continue;
      }
      try {
        await this.#pending.resolve(row.id, decision.outcome, { force: true });
        counts.recorded++;
        this.#log.info({ kind: row.kind, reference: row.id, outcome: decision.outcome.kind, detail: decision.detail }, "held outcome recorded from the processor's records");
      } catch (err) {
        // Recorded meanwhile (by the request, another process or an operator): nothing to do.
        if (!(err instanceof OperatorInputError)) throw err;
      }
    }
    // Forget the items no longer held (an operator resolved them), when the batch held them all.
    if (held.length < BATCH) {
      const still = new Set(held.map((row) => row.id));
      for (const id of this.#toldOperator) if (!still.has(id)) this.#toldOperator.delete(id);
    }
    return counts;
  }
}
