import type { Clock } from '../../platform/clock.ts';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import { PAYMENT_NO_FEE_GROUP, type FeeSchedule } from '../../domain/fee-schedule.ts';
import { ACH_PAYMENT_METHOD_TYPE, FeeCalculationError, type FeeLineInput, type FeeQuote, quoteFees } from '../../domain/fees.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import type { DbOrTx } from '../../platform/database/database.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';
import type { PartnerService } from '../partners/partner-service.ts';
import type { ReferenceService } from '../partners/reference-service.ts';
import type { TokenService } from '../vault/token-service.ts';
import { GUID } from '../../platform/ids.ts';

export interface FeeQuoteRequest {
  lines: readonly FeeLineInput[];
  /** 1-6 card brand, 7 ACH; undefined: a card of unknown brand (no card-type fee). */
  paymentMethodTypeId?: number;
  processorId?: string;
  charityId?: string;
  organizationId?: string;
  integrationSourceId?: string;
  /** TokenGuid (a GUID), or the token's numeric CcInfoKey / CheckInfoKey. */
  tokenRef?: string;
  /**
   * The name of a line's field (`transactionSourceGroupId`, `amountCents`) in the caller's
   * violations; default `lines[i].<field>`.
   */
  lineField?: (index: number, field: keyof FeeLineInput) => string;
}

export interface ResolvedFeeQuote extends FeeQuote {
  /** The payment method the fees were worked out for (the token's, when a token was given). */
  paymentMethodTypeId: number | undefined;
}

/**
 * How long a process reuses a partner's contract for quotes made outside a transaction. A
 * contract change (operator CLI, any process) reaches every quote within this time; a quote made
 * inside a caller's transaction (a payment) always reads the contract afresh.
 */
export const SCHEDULE_CACHE_MS = 10_000;
const SCHEDULE_CACHE_MAX_PARTNERS = 10_000;

const GATEWAY_KEY = /^\d{1,15}$/;

const notFound = (what: string) => new NotFoundError(`Fees not found: ${what}`);

/**
 * The fee quote use case: checks that every referenced processor, charity, organization,
 * integration source and token is the partner's, resolves each line's fee schedule, enforces the
 * group rule of the partner's kind, and runs the pure fee rules (src/domain/fees.ts).
 */
export class FeeService {
  readonly #partners: Pick<PartnerService, 'getContract'>;
  readonly #references: Pick<ReferenceService, 'resolve'>;
  readonly #tokens: Pick<TokenService, 'find'>;
  readonly #clock: Clock;
  readonly #schedules = new Map<string, { expiresAt: number; schedules: ReadonlyMap<number, FeeSchedule> }>();

  constructor(deps: { partners: Pick<PartnerService, 'getContract'>; references: Pick<ReferenceService, 'resolve'>; tokens: Pick<TokenService, 'find'>; clock: Clock }) {
    this.#partners = deps.partners;
    this.#references = deps.references;
    this.#tokens = deps.tokens;
    this.#clock = deps.clock;
  }

  /**
   * Quotes the fees of one payment's lines for `partner`. Pass the caller's transaction as `tx`
   * to quote inside it (the contract is then read in that transaction, not from the cache).
   */
  async quote(partner: AuthenticatedPartner, request: FeeQuoteRequest, tx?: DbOrTx): Promise<ResolvedFeeQuote> {
    const lineField = request.lineField ?? ((i: number, field: string) => `lines[${i}].${field}`);
    const violations: RuleViolation[] = [];

    if (request.tokenRef !== undefined && request.paymentMethodTypeId !== undefined) {
      violations.push({
        code: Rule.FeeTokenWithPaymentMethodType,
        field: 'tokenRef',
        message: "{tokenRef} cannot be sent with {paymentMethodTypeId}: the token's card brand decides the fees.",
      });
    }
    if (request.tokenRef !== undefined && !GUID.test(request.tokenRef) && !GATEWAY_KEY.test(request.tokenRef)) {
      violations.push({ code: Rule.InvalidFormat, field: 'tokenRef', message: "{tokenRef} must be a GUID (or the token's CcInfoKey)." });
    }
    request.lines.forEach((line, i) => {
      const group = line.transactionSourceGroupId;
      if (partner.kind === 'for-profit' && group !== PAYMENT_NO_FEE_GROUP) {
        const field = lineField(i, 'transactionSourceGroupId');
        violations.push({ code: Rule.FeeGroupNotAllowed, field, message: `{${field}} must be 12 (PaymentNoFee) for a for-profit partner.` });
      } else if (partner.kind === 'non-profit' && group === PAYMENT_NO_FEE_GROUP) {
        const field = lineField(i, 'transactionSourceGroupId');
        violations.push({ code: Rule.FeeGroupNotAllowed, field, message: `{${field}} must not be 12 (PaymentNoFee): that group is for for-profit partners.` });
      }
    });
    if (violations.length > 0) throw new ValidationError(violations);

    await this.#checkReferences(partner.id, request, tx);
    const paymentMethodTypeId = request.tokenRef !== undefined ? await this.#tokenPaymentMethod(partner.id, request.tokenRef, tx) : request.paymentMethodTypeId;

    const schedules = tx ? await this.#loadSchedules(partner.id, tx) : await this.schedulesOf(partner.id);
    for (const line of request.lines) {
      if (!schedules.has(line.transactionSourceGroupId)) {
        throw notFound(`the partner's contract has no fee schedule for TransactionSourceGroupId ${line.transactionSourceGroupId}.`);
      }
    }

    try {
      return { ...quoteFees({ lines: request.lines, schedules, paymentMethodTypeId }), paymentMethodTypeId };
    } catch (err) {
      if (!(err instanceof FeeCalculationError)) throw err;
      const field = lineField(err.lineIndex, 'amountCents');
      throw new ValidationError([{ code: Rule.FeeCalculationFailed, field, message: `The fees of {${field}} cannot be calculated: ${err.message}` }]);
    }
  }

  /**
   * The partner's fee schedules by TransactionSourceGroupId, reused for SCHEDULE_CACHE_MS (not
   * when they were read "after" now: the clock was stepped back, and they would be reused for the
   * step as well, with the old fees charged for as long after a contract change).
   */
  async schedulesOf(partnerId: string): Promise<ReadonlyMap<number, FeeSchedule>> {
    const now = this.#clock.now().getTime();
    const cached = this.#schedules.get(partnerId);
    if (cached && cached.expiresAt > now && cached.expiresAt - SCHEDULE_CACHE_MS <= now) return cached.schedules;
    const schedules = await this.#loadSchedules(partnerId);
    if (this.#schedules.size >= SCHEDULE_CACHE_MAX_PARTNERS) this.#schedules.clear();
    this.#schedules.set(partnerId, { expiresAt: now + SCHEDULE_CACHE_MS, schedules });
    return schedules;
  }

  /** Drops cached contracts (one partner's, or all), so the next quote reads them again. */
  forgetSchedules(partnerId?: string): void {
    if (partnerId === undefined) this.#schedules.clear();
    else this.#schedules.delete(partnerId);
  }

  async #loadSchedules(partnerId: string, tx?: DbOrTx): Promise<ReadonlyMap<number, FeeSchedule>> {
    const contract = await this.#partners.getContract(partnerId, tx);
    return new Map(contract.map((s) => [s.groupId, s]));
  }

  /**
   * Every named processor, organization and integration source must be the partner's, and a
   * named charity in the directory (which is global). One round trip, and none when nothing is named.
   */
  async #checkReferences(partnerId: string, request: FeeQuoteRequest, tx: DbOrTx | undefined): Promise<void> {
    const { processorId, charityId, organizationId, integrationSourceId } = request;
    if (processorId === undefined && charityId === undefined && organizationId === undefined && integrationSourceId === undefined) return;
    const found = await this.#references.resolve(partnerId, { processorId, charityId, organizationId, integrationSourceId }, tx);
    if (processorId !== undefined && !found.processor) throw notFound("the ProcessorGuid is not one of the partner's processors.");
    if (charityId !== undefined && !found.charityId) throw notFound('no charity has this CharityId.');
    if (organizationId !== undefined && !found.organizationId) throw notFound("the OrganizationGuid is not one of the partner's organizations.");
    if (integrationSourceId !== undefined && !found.integrationSource) throw notFound("the IntegrationSourceGuid is not one of the partner's integration sources.");
  }

  /** The payment method of the partner's active token: its card brand, or ACH for a bank account. */
  async #tokenPaymentMethod(partnerId: string, tokenRef: string, tx: DbOrTx | undefined): Promise<number> {
    const token = await this.#tokens.find(partnerId, tokenRef, tx);
    if (!token) throw notFound("the TokenGuid is not one of the partner's active tokens.");
    return token.kind === 'bank' ? ACH_PAYMENT_METHOD_TYPE : token.paymentMethodTypeId;
  }
}
