import { createHash, randomInt } from 'node:crypto';
import { ResponseCode } from '../domain/payment-status.ts';
import type { FollowUpRequest, FollowUpResult, ProcessorAdapter, SaleRequest, SaleResult, SettleRequest, SettleResult } from './processor.ts';

/**
 * The built-in sandbox processor. Outcomes are decided by the card or account number, like the
 * widely known sandbox test numbers (table in docs/test-cards.md): every other valid number is
 * approved. No network, no state; an optional latency imitates a real bank.
 */

type CardOutcome = {
  approved: boolean;
  code: string;
  message: string;
  processorMessage: string;
  /** AVS: which of street and zip fail. */
  avsFails?: 'both' | 'zip';
  /** CVV: the check fails ('N') whenever a CVV is sent. */
  cvvFails?: boolean;
  /** Declines only when a CVV is sent. */
  declineWithCvv?: boolean;
};

export const SIMULATOR_CARDS: Readonly<Record<string, CardOutcome>> = {
  '4000000000000002': { approved: false, code: ResponseCode.Declined, message: 'Declined', processorMessage: 'Do not honor' },
  '4000000000009995': { approved: false, code: ResponseCode.InsufficientFunds, message: 'Insufficient funds', processorMessage: 'Insufficient funds' },
  '4000000000000069': { approved: false, code: ResponseCode.InvalidExpirationDate, message: 'Invalid expiration date', processorMessage: 'Expired card' },
  '4000000000000127': { approved: false, code: ResponseCode.Declined, message: 'Declined: incorrect CVV', processorMessage: 'CVV2 mismatch', cvvFails: true },
  '4000000000000119': { approved: false, code: ResponseCode.GeneralError, message: 'Processing error', processorMessage: 'System error, try again' },
  '4000000000000010': { approved: true, code: ResponseCode.Approved, message: 'Approved', processorMessage: 'Approved', avsFails: 'both' },
  '4000000000000036': { approved: true, code: ResponseCode.Approved, message: 'Approved', processorMessage: 'Approved', avsFails: 'zip' },
  '4000000000000101': { approved: false, code: ResponseCode.Declined, message: 'Declined: CVV check failed', processorMessage: 'CVV2 mismatch', declineWithCvv: true },
};

type AchOutcome = { code: string; message: string; processorMessage: string };

/** ACH outcomes by account number (any routing number); every other account is approved. */
export const SIMULATOR_ACCOUNTS: Readonly<Record<string, AchOutcome>> = {
  '000111111116': { code: ResponseCode.InvalidAccountNumber, message: 'Invalid account number', processorMessage: 'R03 No account / unable to locate account' },
  '000111111113': { code: ResponseCode.Declined, message: 'Declined', processorMessage: 'R02 Account closed' },
  '000222222227': { code: ResponseCode.InsufficientFunds, message: 'Insufficient funds', processorMessage: 'R01 Insufficient funds' },
  '000333333335': { code: ResponseCode.Declined, message: 'Declined', processorMessage: 'R10 Customer advises not authorized' },
};

/** Routing number that the simulator treats as unknown to the ACH network. */
export const SIMULATOR_UNKNOWN_ROUTING = '111000038';

const APPROVED: CardOutcome = { approved: true, code: ResponseCode.Approved, message: 'Approved', processorMessage: 'Approved' };

function transactionId(): string {
  // 15 random digits after a prefix: unique enough for a sandbox, never sequential.
  return `SIM${String(randomInt(1e9, 1e10))}${String(randomInt(1e4, 1e5))}`;
}

function authCode(reference: string): string {
  return createHash('sha256').update(reference).digest('hex').slice(0, 6).toUpperCase();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class SimulatorProcessor implements ProcessorAdapter {
  readonly name = 'simulator';
  readonly #latencyMs: number;

  constructor(options: { latencyMs?: number } = {}) {
    this.#latencyMs = options.latencyMs ?? 0;
  }

  async sale(request: SaleRequest): Promise<SaleResult> {
    if (this.#latencyMs > 0) await sleep(this.#latencyMs);
    if (request.bank) return this.#ach(request);
    return this.#card(request);
  }

  #card(request: SaleRequest): SaleResult {
    const number = request.card?.number;
    const cvvSent = !!request.card?.cvv;
    let outcome = (number && SIMULATOR_CARDS[number]) || APPROVED;
    if (outcome.declineWithCvv && !cvvSent) outcome = APPROVED;
    const street = request.billing.street?.trim();
    const zip = request.billing.zip?.trim();
    let avsStreetStatus: string | null = null;
    let avsZipStatus: string | null = null;
    let avsResponse: string | null = null;
    if (request.card) {
      const streetMatch = !!street && outcome.avsFails !== 'both';
      const zipMatch = !!zip && outcome.avsFails === undefined;
      avsStreetStatus = street ? (streetMatch ? 'Match' : 'No Match') : 'Not Provided';
      avsZipStatus = zip ? (zipMatch ? 'Match' : 'No Match') : 'Not Provided';
      // Standard AVS letters: Y both match, A street only, Z zip only, N neither, U nothing to check.
      avsResponse = !street && !zip ? 'U' : streetMatch && zipMatch ? 'Y' : streetMatch ? 'A' : zipMatch ? 'Z' : 'N';
    }
    // CVV letters: M match, N no match, P not processed (none sent).
    const cvvResponse = request.card ? (cvvSent ? (outcome.cvvFails || outcome.declineWithCvv ? 'N' : 'M') : 'P') : null;
    return {
      approved: outcome.approved,
      responseCode: outcome.code,
      message: outcome.message,
      processorMessage: outcome.processorMessage,
      authCode: outcome.approved ? authCode(request.reference) : null,
      transactionId: transactionId(),
      avsStreetStatus,
      avsZipStatus,
      avsResponse,
      cvvResponse,
      // Credit cards are surcharge-eligible in the sandbox; wallets too.
      isSurchargeEligible: request.card || request.wallet ? true : null,
    };
  }

  #ach(request: SaleRequest): SaleResult {
    const bank = request.bank!;
    const outcome: AchOutcome | undefined =
      bank.routingNumber === SIMULATOR_UNKNOWN_ROUTING
        ? { code: ResponseCode.InvalidAbaNumber, message: 'Invalid ABA number', processorMessage: 'R28 Routing number check digit error' }
        : SIMULATOR_ACCOUNTS[bank.accountNumber];
    const approved = !outcome;
    return {
      approved,
      responseCode: outcome?.code ?? ResponseCode.Approved,
      message: outcome?.message ?? 'Approved',
      processorMessage: outcome?.processorMessage ?? 'Accepted for processing',
      authCode: approved ? authCode(request.reference) : null,
      transactionId: transactionId(),
      avsStreetStatus: null,
      avsZipStatus: null,
      avsResponse: null,
      cvvResponse: null,
      isSurchargeEligible: false,
    };
  }

  async void(request: FollowUpRequest): Promise<FollowUpResult> {
    if (this.#latencyMs > 0) await sleep(this.#latencyMs);
    return { approved: true, responseCode: ResponseCode.Approved, message: 'Void approved', processorMessage: 'Reversal accepted', transactionId: transactionId() };
  }

  async refund(request: FollowUpRequest): Promise<FollowUpResult> {
    if (this.#latencyMs > 0) await sleep(this.#latencyMs);
    return {
      approved: true,
      responseCode: ResponseCode.Approved,
      message: 'Refund approved',
      processorMessage: request.kind === 'ach' ? 'Credit entry accepted for the next ACH batch' : 'Credit accepted',
      transactionId: transactionId(),
    };
  }

  /** The sandbox accepts every batch; its reference is derived from our batch id (idempotent). */
  async settle(request: SettleRequest): Promise<SettleResult> {
    if (this.#latencyMs > 0) await sleep(this.#latencyMs);
    const count = request.totals.reduce((n, t) => n + t.count, 0);
    return { accepted: true, reference: `SIMBATCH-${authCode(request.batchId)}`, message: `Batch closed: ${count} sale(s)` };
  }
}
