import { OperatorInputError } from './partners.ts';

/** What the processor's records say about a sale, refund or void whose answer was never recorded. */
export type ProcessorOutcome =
  | { kind: 'approved'; transactionId: string; authCode?: string }
  | { kind: 'declined' }
  /** The processor has no record of it: nothing happened there. */
  | { kind: 'not-processed' };

/** Written into the processor message of an outcome an operator recorded. */
export const BY_OPERATOR = "recorded by an operator from the processor's records";

/** A processor's transaction id or authorization code, as an operator copies it from a report. */
const PROCESSOR_REFERENCE = /^[A-Za-z0-9._:-]{1,100}$/;

export function checkOutcome(outcome: ProcessorOutcome): void {
  if (outcome.kind !== 'approved') return;
  if (!PROCESSOR_REFERENCE.test(outcome.transactionId)) throw new OperatorInputError('the transaction id must be 1-100 letters, digits or . _ : -');
  if (outcome.authCode !== undefined && !PROCESSOR_REFERENCE.test(outcome.authCode)) throw new OperatorInputError('the auth code must be 1-100 letters, digits or . _ : -');
}
