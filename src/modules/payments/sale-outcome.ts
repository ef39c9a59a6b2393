import { PaymentResult, ProcessStatus, ResponseCode } from '../../domain/payment-status.ts';
import type { SaleResult } from '../../processors/processor.ts';
import type { PaymentChanges } from './payment-record.ts';

/**
 * What the sale call gave: the processor's answer; 'not-reached' (the adapter says the request
 * never reached it: nothing happened); or 'unknown' (any other failure: it may have charged).
 */
export type SaleAnswer = SaleResult | 'not-reached' | 'unknown';

/** The message of a payment whose processor call failed in a way that leaves the charge unknown. */
export const UNKNOWN_OUTCOME_MESSAGE =
  "Processing error: the processor's answer was not received, so whether the payment went through is not known. Do not pay again: the payment is held until it is confirmed or cancelled.";

/** The message of a payment the processor answered whose answer could not be recorded yet. */
export const UNRECORDED_OUTCOME_MESSAGE =
  "Processing error: the processor's answer could not be recorded yet, so the payment's outcome is being confirmed. Do not pay again: the payment is held until it is confirmed.";

/** The fields the processor's answer writes on the attempt. */
export function answerChanges(answer: SaleAnswer, now: Date): PaymentChanges {
  if (answer === 'not-reached') {
    return {
      responseCode: ResponseCode.GeneralError,
      message: 'Processing error: the processor could not be reached. The payment was not processed.',
      processorMessage: null,
      successful: false,
      paymentResult: PaymentResult.Failed,
      processStatus: ProcessStatus.NotProcessed,
      processedAt: now,
    };
  }
  if (answer === 'unknown') {
    // The processor may have charged: Processing until it is confirmed. The TranId stays taken,
    // and a pay link stays closed, meanwhile.
    return {
      responseCode: ResponseCode.GeneralError,
      message: UNKNOWN_OUTCOME_MESSAGE,
      processorMessage: null,
      successful: false,
      paymentResult: PaymentResult.Processing,
      processStatus: ProcessStatus.NotProcessed,
    };
  }
  const approved = answer.approved;
  return {
    // An answer that made no transaction (an error) has none: two empty ids would collide.
    transactionId: answer.transactionId || null,
    authCode: answer.authCode,
    responseCode: answer.responseCode,
    message: answer.message,
    processorMessage: answer.processorMessage,
    successful: approved,
    paymentResult: approved ? PaymentResult.Successful : PaymentResult.Failed,
    processStatus: approved ? ProcessStatus.Authorized : ProcessStatus.Rejected,
    avsStreetStatus: answer.avsStreetStatus,
    avsZipStatus: answer.avsZipStatus,
    avsResponse: answer.avsResponse,
    cvvResponse: answer.cvvResponse,
    isSurchargeEligible: answer.isSurchargeEligible,
    processedAt: now,
  };
}

/**
 * The attempt as answered while its outcome cannot be recorded: held (Processing), the same answer
 * as for a processor that did not answer; the outcome is written once the database takes it.
 */
export const HELD_WHILE_UNRECORDED: PaymentChanges = {
  responseCode: ResponseCode.GeneralError,
  message: UNRECORDED_OUTCOME_MESSAGE,
  processorMessage: null,
  successful: false,
  paymentResult: PaymentResult.Processing,
  processStatus: ProcessStatus.NotProcessed,
};

/** An attempt written as Pending, or perhaps written, that was never sent to the processor. */
export function notSentChanges(now: Date): PaymentChanges {
  return {
    responseCode: ResponseCode.GeneralError,
    message: 'Processing error: the payment could not be recorded, so it was not sent to the processor. It was not processed.',
    processorMessage: null,
    successful: false,
    paymentResult: PaymentResult.Failed,
    processStatus: ProcessStatus.NotProcessed,
    processedAt: now,
  };
}
