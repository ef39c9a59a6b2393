import { createHash, randomInt } from 'node:crypto';
import { ResponseCode } from '../domain/payment-status.ts';
import {
  type CallOptions,
  type FollowUpRequest,
  type FollowUpResult,
  type LookupRequest,
  type LookupResult,
  type ProcessorAdapter,
  type ProcessorCapabilities,
  LookupUnsupportedError,
  type SaleRequest,
  type SaleResult,
  type SettleRequest,
  type SettleResult,
} from './processor.ts';
import type { LedgerEntry, SimulatorLedger } from './simulator-ledger.ts';

/**
 * The built-in sandbox processor. Outcomes are decided by the card or account number, like the
 * widely known sandbox test numbers (table in docs/test-cards.md): every other valid number is
 * approved. No network; an optional latency imitates a real bank. With a ledger (every server's
 * composition gives it one), it records each sale, refund and void as it answers (written within
 * milliseconds, in the background), and its look-ups read that record: what it did is known to
 * every process on the database, after a restart too.
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

/** Waits `ms`, or until the call is abandoned (then throws the signal's reason: nothing was done). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abandoned);
      resolve();
    }, ms);
    const abandoned = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abandoned, { once: true });
  });
}

/** What the simulator can do: everything the service offers, in every country it takes bank accounts of. */
export const SIMULATOR_CAPABILITIES: ProcessorCapabilities = {
  paymentMethodTypes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  achCountries: ['US', 'CA', 'AU'],
  voidNeedsOriginalAmount: false,
  partialRefunds: true,
  achRefundNeedsAccount: false,
  settlesItself: false,
  // Its ledger is written within milliseconds of its answer, and a call abandoned at its deadline
  // records nothing: a reference it has not recorded a minute after the call began was never acted on.
  notFoundIsFinalAfterMs: 60_000,
};

export class SimulatorProcessor implements ProcessorAdapter {
  readonly name = 'simulator';
  readonly capabilities = SIMULATOR_CAPABILITIES;
  readonly #latencyMs: number;
  readonly #ledger: SimulatorLedger | undefined;

  constructor(options: { latencyMs?: number; ledger?: SimulatorLedger } = {}) {
    this.#latencyMs = options.latencyMs ?? 0;
    this.#ledger = options.ledger;
  }

  async sale(request: SaleRequest, options?: CallOptions): Promise<SaleResult> {
    if (this.#latencyMs > 0) await sleep(this.#latencyMs, options?.signal);
    const decided = request.bank ? this.#ach(request) : this.#card(request);
    this.#record(
      { reference: request.reference, kind: 'sale', approved: decided.approved, responseCode: decided.responseCode, transactionId: decided.transactionId, authCode: decided.authCode, amountCents: request.amountCents, originalTransactionId: null },
      options,
    );
    return decided;
  }

  /**
   * Records what it is about to answer, unless the call was abandoned meanwhile (its deadline
   * passed): then nothing was done, and the call fails.
   */
  #record(entry: Omit<LedgerEntry, 'recordedAt'>, options: CallOptions | undefined): void {
    options?.signal?.throwIfAborted();
    this.#ledger?.record(entry);
  }

  /** Writes what it has recorded (the composition root drains it before the store closes). */
  drain(): Promise<void> {
    return this.#ledger?.drain() ?? Promise.resolve();
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

  async void(request: FollowUpRequest, options?: CallOptions): Promise<FollowUpResult> {
    if (this.#latencyMs > 0) await sleep(this.#latencyMs, options?.signal);
    const id = this.#followUp('void', request, options);
    return { approved: true, responseCode: ResponseCode.Approved, message: 'Void approved', processorMessage: 'Reversal accepted', transactionId: id };
  }

  async refund(request: FollowUpRequest, options?: CallOptions): Promise<FollowUpResult> {
    if (this.#latencyMs > 0) await sleep(this.#latencyMs, options?.signal);
    const id = this.#followUp('refund', request, options);
    return {
      approved: true,
      responseCode: ResponseCode.Approved,
      message: 'Refund approved',
      processorMessage: request.kind === 'ach' ? 'Credit entry accepted for the next ACH batch' : 'Credit accepted',
      transactionId: id,
    };
  }

  /** Records an approved refund or void; its transaction id. */
  #followUp(kind: 'refund' | 'void', request: FollowUpRequest, options: CallOptions | undefined): string {
    const id = transactionId();
    this.#record({ reference: request.reference, kind, approved: true, responseCode: ResponseCode.Approved, transactionId: id, authCode: null, amountCents: request.amountCents, originalTransactionId: request.originalTransactionId || null }, options);
    return id;
  }

  /** The sandbox accepts every batch; its reference is derived from our batch id (idempotent). */
  async settle(request: SettleRequest, options?: CallOptions): Promise<SettleResult> {
    if (this.#latencyMs > 0) await sleep(this.#latencyMs, options?.signal);
    const count = request.totals.reduce((n, t) => n + t.count, 0);
    return { accepted: true, reference: `SIMBATCH-${authCode(request.batchId)}`, message: `Batch closed: ${count} sale(s)` };
  }

  /**
   * What its ledger says of a reference. Without a ledger it knows nothing it did: it cannot say,
   * and says so (an error), rather than answer "not found" for what it may have done.
   */
  async lookup(request: LookupRequest, options?: CallOptions): Promise<LookupResult> {
    options?.signal?.throwIfAborted();
    if (!this.#ledger) throw new LookupUnsupportedError('this simulator keeps no ledger: it cannot look transactions up');
    const entry = await this.#ledger.find(request.reference);
    if (!entry || entry.kind !== request.kind) return { found: false, detail: `the simulator has no ${request.kind} ${request.reference}` };
    const voided = entry.kind === 'sale' && entry.approved ? (await this.#ledger.voidOf(entry.transactionId)) !== undefined : false;
    return {
      found: true,
      outcome: entry.approved ? 'approved' : 'declined',
      transactionId: entry.transactionId,
      authCode: entry.authCode,
      amountCents: entry.amountCents,
      voided,
      settledAt: null,
      status: voided ? 'voided' : entry.approved ? 'approved' : 'declined',
    };
  }
}
