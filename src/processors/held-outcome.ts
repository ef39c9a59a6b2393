import type { Cents } from '../domain/money.ts';
import { LookupUnsupportedError, type ProcessorAdapter } from './processor.ts';

/**
 * What to record for a payment, refund or void held because its processor's answer was lost (a
 * timeout, a stop between asking and recording), from what the processor's records say. The
 * background resolution calls it for each held item; `payments pending resolve` records the same
 * outcomes by hand.
 */

/** A held payment, refund or void, as the resolution hands it over. */
export interface HeldItem {
  kind: 'payment' | 'refund' | 'void';
  /** The PaymentGuid, or the refund's or void's id: the reference the processor was sent. */
  reference: string;
  /** When it was sent (the payment's or claim's creation). */
  sentAt: Date;
  amountCents: Cents;
  /** A refund's or void's: the payment's transaction id at the processor. */
  originalTransactionId?: string | null;
}

/**
 * The outcome to record, in the shape `payments pending resolve` records
 * (modules/payments/processor-outcome.ts, ProcessorOutcome): the same type, kept here because
 * processors sit below the modules.
 */
export type HeldOutcome =
  | { kind: 'approved'; transactionId: string; authCode?: string }
  | { kind: 'declined' }
  | { kind: 'not-processed' }
  | { kind: 'voided'; transactionId?: string };

export type HeldDecision =
  /** Record this: the processor says what happened. */
  | { action: 'record'; outcome: HeldOutcome; detail: string }
  /** Ask again later: the processor cannot say yet (not found within its window, held for review, not reachable). */
  | { action: 'wait'; detail: string }
  /** The processor's records cannot settle it (it cannot look up, or says something no rule here reads): an operator looks (`payments pending`). */
  | { action: 'operator'; detail: string };

/**
 * Asks the processor (an adapter bound to the item's processor, `ProcessorRegistry.forProcessor`,
 * with its deadline) and decides. Never throws for the processor's failures: a look-up that fails
 * is asked again later, one the adapter cannot make is the operator's.
 */
export async function resolveHeldOutcome(adapter: ProcessorAdapter, item: HeldItem, now: Date): Promise<HeldDecision> {
  const kind = item.kind === 'payment' ? 'sale' : item.kind;
  let found;
  try {
    found = await adapter.lookup({
      kind,
      reference: item.reference,
      sentAt: item.sentAt,
      amountCents: item.amountCents,
      ...(item.originalTransactionId ? { originalTransactionId: item.originalTransactionId } : {}),
    });
  } catch (err) {
    const why = (err as Error)?.message ?? String(err);
    if (err instanceof LookupUnsupportedError) return { action: 'operator', detail: why };
    // Not reached, a timeout, a broken answer: asked again later.
    return { action: 'wait', detail: `the look-up failed: ${why}` };
  }
  if (!found.found) {
    const age = now.getTime() - item.sentAt.getTime();
    if (age < adapter.capabilities.notFoundIsFinalAfterMs) return { action: 'wait', detail: `not found yet (${found.detail}); the processor's records may still show it` };
    return { action: 'record', outcome: { kind: 'not-processed' }, detail: `not found ${Math.round(age / 60_000)} minutes after it was sent: ${found.detail}` };
  }
  const said = `the processor says ${found.status}${found.transactionId ? ` (transaction ${found.transactionId})` : ''}`;
  if (found.amountCents !== null && found.amountCents !== item.amountCents) {
    return { action: 'operator', detail: `${said} for ${found.amountCents} cents, not ${item.amountCents}: check it` };
  }
  switch (found.outcome) {
    case 'pending':
      return { action: 'wait', detail: `${said}: not decided yet` };
    case 'unclear':
      return { action: 'operator', detail: said };
    case 'declined':
      return { action: 'record', outcome: { kind: 'declined' }, detail: said };
    case 'approved':
      if (!found.transactionId) return { action: 'operator', detail: `${said}, without a transaction id` };
      // A sale approved and voided (by a process that could not record the approval): voided.
      if (item.kind === 'payment' && found.voided) return { action: 'record', outcome: { kind: 'voided', transactionId: found.transactionId }, detail: said };
      return { action: 'record', outcome: { kind: 'approved', transactionId: found.transactionId, ...(found.authCode ? { authCode: found.authCode } : {}) }, detail: said };
  }
}
