import { parseAmount } from '../../domain/money.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { Rule, type RuleName, type RuleViolation } from '../../domain/rules.ts';
import { GUID } from '../../platform/ids.ts';

/** A refund or void request, as every surface hands it over (text as sent; the service validates). */
export interface AdjustmentInput {
  paymentGuid?: string;
  paymentExternalId?: string;
  processorGuid?: string;
  reason?: string;
  /** internal use; checked for format by the edge, not used to find the payment. */
  charityId?: string;
  organizationGuid?: string;
  integrationSource?: string;
  /**
   * Not in the spec's request: a refund or void is always for the whole payment. Sent anyway (a
   * partner meaning a partial refund), it must be the payment's total, or the request is refused:
   * it is never taken as a partial amount, nor silently ignored (a partner audit saw "10.00" refund
   * all of 108.44).
   */
  amount?: string;
}

/** Who asked, for the history record. */
export interface AdjustmentRequestMeta {
  source: 'api' | 'operator';
  requestId?: string;
}

/** The spec's refund and void response, in the service's terms. */
export interface AdjustmentOutcome {
  successful: boolean;
  message: string;
  processorMessage: string | null;
  /** The processor's id of this refund or void (null when nothing reached the processor). */
  transactionId: string | null;
  originalTransactionId: string | null;
  paymentGuid: string;
  paymentId: number;
  responseCode: string;
  /** The payment's state after the request. */
  paymentResult: number;
  processStatus: number;
  /** Our id of the history record. */
  adjustmentId: string;
}

/** Processor transaction ids: printable ASCII without spaces. */
const EXTERNAL_ID = /^[!-~]{1,200}$/;
export const REASON_MAX_LENGTH = 500;
export const EXTERNAL_ID_MAX_LENGTH = 200;

export const blank = (v: string | undefined) => v === undefined || v.trim() === '';

/** Every rule of the request that needs no database, at once (one violation per field), in the service's words. */
export function adjustmentViolations(partner: AuthenticatedPartner, input: AdjustmentInput): RuleViolation[] {
  const out: RuleViolation[] = [];
  const add = (code: RuleName, field: string | undefined, message: string) => {
    if (!out.some((v) => v.field === field)) out.push({ code, field, message });
  };
  if (blank(input.paymentGuid) && blank(input.paymentExternalId)) {
    add(Rule.PaymentReferenceRequired, 'paymentGuid', "{paymentGuid} or {paymentExternalId} is required: the payment to act on.");
  }
  if (!blank(input.paymentGuid) && !GUID.test(input.paymentGuid!.trim())) add(Rule.InvalidFormat, 'paymentGuid', "{paymentGuid} must be a GUID.");
  if (input.paymentExternalId !== undefined && input.paymentExternalId.length > EXTERNAL_ID_MAX_LENGTH) {
    add(Rule.MaxLength, 'paymentExternalId', `{paymentExternalId} must be at most ${EXTERNAL_ID_MAX_LENGTH} characters.`);
  } else if (!blank(input.paymentExternalId) && !EXTERNAL_ID.test(input.paymentExternalId!.trim())) {
    add(Rule.InvalidFormat, 'paymentExternalId', "{paymentExternalId} must be a transaction id: printable characters without spaces.");
  }
  if (input.amount !== undefined && parseAmount(input.amount) === undefined) {
    add(Rule.InvalidFormat, 'amount', "{amount} must be an amount (digits with at most 2 decimals); leave it out: a refund or void is for the whole payment.");
  }
  if (blank(input.reason)) add(Rule.Required, 'reason', "{reason} is required.");
  else if (input.reason!.length > REASON_MAX_LENGTH) add(Rule.MaxLength, 'reason', `{reason} must be at most ${REASON_MAX_LENGTH} characters.`);
  if (partner.kind === 'for-profit' && blank(input.processorGuid)) {
    add(Rule.ProcessorRequired, 'processorGuid', "{processorGuid} is required for a for-profit partner.");
  } else if (!blank(input.processorGuid) && !GUID.test(input.processorGuid!.trim())) {
    add(Rule.InvalidFormat, 'processorGuid', "{processorGuid} must be a GUID.");
  }
  return out;
}
