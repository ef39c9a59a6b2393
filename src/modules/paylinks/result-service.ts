import type { Clock } from '../../platform/clock.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import type { Ids } from '../../platform/ids.ts';
import { sha256 } from '../../platform/secrets.ts';
import { NotFoundError } from '../../platform/errors.ts';
import type { PaymentRecord } from '../payments/payment-record.ts';
import type { PaymentService } from '../payments/payment-service.ts';
import type { StoredToken, TokenService } from '../vault/token-service.ts';
import type { PayLinkResultRepository } from './result-repository.ts';

/** A responseToken is good for this long after the redirect. */
export const RESULT_TOKEN_TTL_MS = 30 * 60_000;

/** What a redeemed responseToken confirms: the link's payment, or the card it stored (WorkflowType 3 and 4). */
export type PayLinkResult =
  | { kind: 'payment'; payLinkId: string; record: PaymentRecord; recurringProfileId: string | null }
  | { kind: 'token'; payLinkId: string; token: StoredToken; createdAt: Date };

/**
 * The responseToken of a redirect: 256 random bits handed to the payer's browser, kept as
 * SHA-256. The partner's server redeems it once, within 30 minutes, with its own AccessToken;
 * the query string's other values are only hints.
 */
export class PayLinkResultService {
  readonly #repository: PayLinkResultRepository;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #payments: PaymentService;
  readonly #tokens: TokenService;

  constructor(deps: { repository: PayLinkResultRepository; clock: Clock; ids: Ids; payments: PaymentService; tokens: TokenService }) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#payments = deps.payments;
    this.#tokens = deps.tokens;
  }

  /** A new responseToken for the outcome of a link (a payment or a stored card). */
  async issue(link: { id: string; partnerId: string }, outcome: { paymentId?: string; tokenId?: string }): Promise<string> {
    const token = this.#ids.secret(32);
    const now = this.#clock.now();
    await this.#repository.insert({
      tokenHash: sha256(token),
      payLinkId: link.id,
      partnerId: link.partnerId,
      paymentId: outcome.paymentId ?? null,
      tokenId: outcome.tokenId ?? null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + RESULT_TOKEN_TTL_MS),
    });
    return token;
  }

  /**
   * Redeems a responseToken: once, before it expires, by the link's partner only. Unknown, used,
   * expired and another partner's tokens are all "not found" (another partner's is not used up).
   */
  async redeem(partner: AuthenticatedPartner, responseToken: string): Promise<PayLinkResult> {
    const now = this.#clock.now();
    const row = await this.#repository.redeem(sha256(responseToken.trim()), partner.id, now);
    if (!row) throw new NotFoundError('No such responseToken: unknown, already used or expired.');
    if (row.paymentId) {
      // The profile a recurring line started after this payment (the partner manages it by this guid).
      const recurringProfileId = await this.#repository.recurringProfileOf(row.payLinkId);
      const record = await this.#payments.get(partner.id, row.paymentId);
      return { kind: 'payment', payLinkId: row.payLinkId, record, recurringProfileId };
    }
    const token = row.tokenId ? await this.#tokens.find(partner.id, row.tokenId) : undefined;
    if (!token) throw new NotFoundError('The card this responseToken confirms has been deleted since.');
    return { kind: 'token', payLinkId: row.payLinkId, token, createdAt: row.createdAt };
  }

  /** Removes tokens that expired more than a day ago (housekeeping; redeem ignores them anyway). */
  async prune(): Promise<number> {
    const cutoff = new Date(this.#clock.now().getTime() - 24 * 3600_000);
    return this.#repository.deleteExpiredBefore(cutoff);
  }
}
