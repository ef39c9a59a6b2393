import { OperatorInputError } from '../../platform/errors.ts';

/** What the processor's records say about a sale, refund or void whose answer was never recorded. */
export type ProcessorOutcome =
  | { kind: 'approved'; transactionId: string; authCode?: string }
  | { kind: 'declined' }
  /** The processor has no record of it: nothing happened there. */
  | { kind: 'not-processed' }
  /**
   * A sale approved and then voided at the processor: what a payment process does when it cannot
   * record an approval (payments only).
   */
  | { kind: 'voided'; transactionId?: string };

/**
 * A sale, refund or void pending for less than this may still be waiting for its processor's
 * answer: it is not listed as unknown, and resolving it needs --force.
 */
export const UNKNOWN_AFTER_MINUTES = 15;

/** Written into the processor message of an outcome an operator recorded. */
export const BY_OPERATOR = "recorded by an operator from the processor's records";

/** A processor's transaction id or authorization code, as an operator copies it from a report. */
const PROCESSOR_REFERENCE = /^[A-Za-z0-9._:-]{1,100}$/;

export function checkOutcome(outcome: ProcessorOutcome): void {
  if (outcome.kind !== 'approved' && outcome.kind !== 'voided') return;
  if (outcome.transactionId !== undefined && !PROCESSOR_REFERENCE.test(outcome.transactionId)) throw new OperatorInputError('the transaction id must be 1-100 letters, digits or . _ : -');
  if (outcome.kind !== 'approved') return;
  if (outcome.authCode !== undefined && !PROCESSOR_REFERENCE.test(outcome.authCode)) throw new OperatorInputError('the auth code must be 1-100 letters, digits or . _ : -');
}

export function tooYoung(what: string, id: string): OperatorInputError {
  return new OperatorInputError(
    `${what} ${id} has been pending for less than ${UNKNOWN_AFTER_MINUTES} minutes and may still be waiting for its processor's answer; add --force if you know better`,
  );
}
