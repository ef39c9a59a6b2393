import { ResponseCode } from '../../domain/payment-status.ts';

/**
 * Authorize.Net's answers in the service's terms (docs/processors.md has the full table). Its
 * transaction `responseCode` is 1 approved, 2 declined, 3 error, 4 held for review; the reason
 * (`errors[0].errorCode`, or `messages[0].code` of an approval) says more. The service's
 * ResponseCode values are the original gateway's (domain/payment-status.ts).
 */

export interface Reason {
  /** The service's ResponseCode. */
  code: string;
  /** The message the partner reads (the service's words). */
  message: string;
}

/**
 * Reasons whose note says the processor's own void of a failed transaction failed (a timeout at
 * the card network, an AVS or card code refusal after authorization): the card may be charged.
 * Their outcome is unknown until a look-up says.
 */
export const SYSTEM_VOID_FAILED: ReadonlySet<string> = new Set(['120', '121', '122', '127', '165']);

/** A duplicate of a transaction sent within the duplicate window: the first one's outcome stands. */
export const DUPLICATE = '11';

/** Declines (responseCode 2) by reason. */
const DECLINES: Readonly<Record<string, Reason>> = {
  '3': { code: ResponseCode.Referral, message: 'Declined: call the card issuer for a voice authorization (referral)' },
  '4': { code: ResponseCode.Declined, message: 'Declined: the card issuer asks to pick up the card' },
  '27': { code: ResponseCode.Declined, message: 'Declined: the address does not match the card holder\'s billing address (AVS)' },
  '44': { code: ResponseCode.Declined, message: 'Declined: incorrect CVV' },
  '45': { code: ResponseCode.Declined, message: 'Declined: the address (AVS) and the CVV do not match' },
  '65': { code: ResponseCode.Declined, message: 'Declined: incorrect CVV' },
  '250': { code: ResponseCode.Declined, message: 'Declined by the fraud filters' },
  '251': { code: ResponseCode.Declined, message: 'Declined by the fraud filters' },
  '254': { code: ResponseCode.Declined, message: 'Declined after review' },
};

/** Errors (responseCode 3) that say something about the card or account, by reason; every other error is a processing error. */
const ERRORS: Readonly<Record<string, Reason>> = {
  '6': { code: ResponseCode.Declined, message: 'Declined: the card number is invalid' },
  '7': { code: ResponseCode.InvalidExpirationDate, message: 'Invalid expiration date' },
  '8': { code: ResponseCode.InvalidExpirationDate, message: 'Invalid expiration date: the card has expired' },
  '9': { code: ResponseCode.InvalidAbaNumber, message: 'Invalid ABA number' },
  '10': { code: ResponseCode.InvalidAccountNumber, message: 'Invalid account number' },
  '17': { code: ResponseCode.Declined, message: 'Declined: the merchant account does not accept this card brand' },
  '18': { code: ResponseCode.Declined, message: 'Declined: the merchant account does not accept bank account (eCheck) payments' },
  '28': { code: ResponseCode.Declined, message: 'Declined: the merchant account does not accept this card brand' },
  '37': { code: ResponseCode.Declined, message: 'Declined: the card number is invalid' },
  '315': { code: ResponseCode.Declined, message: 'Declined: the card number is invalid' },
  '316': { code: ResponseCode.InvalidExpirationDate, message: 'Invalid expiration date' },
  '317': { code: ResponseCode.InvalidExpirationDate, message: 'Invalid expiration date: the card has expired' },
};

/** Refusals of a refund or void (responseCode 3) by reason, in the partner's words. */
const FOLLOW_UP_REFUSALS: Readonly<Record<string, string>> = {
  '16': 'Declined: the processor has no such transaction',
  '54': 'Declined: the payment has not settled at the processor yet (or is not refundable there); a refund is possible once it has settled',
  '55': 'Declined: the refunds would exceed the amount of the payment',
  '311': 'Declined: the payment is already settled at the processor and can no longer be voided; refund it instead',
};

/** A void of a transaction Authorize.Net no longer holds unsettled is answered "cannot be found" (16). */
const VOID_NOT_FOUND = 'Declined: the processor has no unsettled transaction to void (once a payment has settled there, refund it instead)';

export function declineReason(reason: string): Reason {
  return DECLINES[reason] ?? { code: ResponseCode.Declined, message: 'Declined' };
}

export function errorReason(reason: string): Reason {
  return ERRORS[reason] ?? { code: ResponseCode.GeneralError, message: 'Processing error: the payment was not processed' };
}

export function followUpRefusal(kind: 'void' | 'refund', reason: string): Reason {
  const message = kind === 'void' && reason === '16' ? VOID_NOT_FOUND : FOLLOW_UP_REFUSALS[reason];
  if (message) return { code: ResponseCode.Declined, message };
  return { code: ResponseCode.GeneralError, message: `Processing error: the ${kind} was not processed` };
}

/** The service's AVS vocabulary, the simulator's (docs/test-cards.md): statuses and one letter. */
export interface Avs {
  avsStreetStatus: string | null;
  avsZipStatus: string | null;
  avsResponse: string | null;
}

/**
 * Authorize.Net's `avsResultCode` in the simulator's terms. X and W (9-digit zip) read as Y and Z;
 * a check that could not be made (B E G R S U) is U with no statuses; P (not applicable: no card)
 * is nothing. A street or zip we did not send is 'Not Provided', as the simulator says.
 */
export function avsOf(letter: string | undefined, sent: { street: boolean; zip: boolean }): Avs {
  const both = (street: string | null, zip: string | null, avsResponse: string | null): Avs => ({
    avsStreetStatus: street === null ? null : sent.street ? street : 'Not Provided',
    avsZipStatus: zip === null ? null : sent.zip ? zip : 'Not Provided',
    avsResponse,
  });
  switch (letter) {
    case 'Y':
    case 'X':
      return both('Match', 'Match', 'Y');
    case 'A':
      return both('Match', 'No Match', 'A');
    case 'Z':
    case 'W':
      return both('No Match', 'Match', 'Z');
    case 'N':
      return both('No Match', 'No Match', 'N');
    case 'B':
      return { avsStreetStatus: 'Not Provided', avsZipStatus: 'Not Provided', avsResponse: 'U' };
    case 'E':
    case 'G':
    case 'R':
    case 'S':
    case 'U':
      return { avsStreetStatus: null, avsZipStatus: null, avsResponse: 'U' };
    default:
      return { avsStreetStatus: null, avsZipStatus: null, avsResponse: null };
  }
}

/**
 * Authorize.Net's `cvvResultCode` in the simulator's letters: M match, N no match, P not
 * processed (none sent, S "should be on the card", U issuer not certified).
 */
export function cvvOf(letter: string | undefined): 'M' | 'N' | 'P' {
  if (letter === 'M') return 'M';
  if (letter === 'N') return 'N';
  return 'P';
}

/**
 * Authorize.Net's transaction statuses (getTransactionDetails, transaction lists) as a look-up's
 * outcome. Approved: it went through (settled or on its way); declined: refused or failed, no
 * money moved; pending: held for review, not decided; unclear: an operator looks.
 */
export function outcomeOfStatus(status: string): { outcome: 'approved' | 'declined' | 'pending' | 'unclear'; voided: boolean; settled: boolean } {
  switch (status) {
    case 'authorizedPendingCapture':
    case 'capturedPendingSettlement':
    case 'pendingSettlement':
    case 'pendingFinalSettlement':
    case 'updatingSettlement':
    case 'approvedReview':
    case 'authorizedPendingRelease':
    case 'refundPendingSettlement':
      return { outcome: 'approved', voided: false, settled: false };
    case 'settledSuccessfully':
    case 'refundSettledSuccessfully':
    case 'returnedItem':
    case 'chargeback':
    case 'chargebackReversal':
      return { outcome: 'approved', voided: false, settled: true };
    case 'voided':
      return { outcome: 'approved', voided: true, settled: false };
    case 'declined':
    case 'failedReview':
    case 'expired':
    case 'generalError':
    case 'communicationError':
      return { outcome: 'declined', voided: false, settled: false };
    case 'FDSPendingReview':
    case 'FDSAuthorizedPendingReview':
    case 'underReview':
      return { outcome: 'pending', voided: false, settled: false };
    default:
      // settlementError, couldNotVoid and any status added later.
      return { outcome: 'unclear', voided: false, settled: false };
  }
}
