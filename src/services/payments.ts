import { and, asc, eq } from 'drizzle-orm';
import type { Clock } from '../clock.ts';
import { cardBrand, checkExpiry, type CardPaymentMethodTypeId } from '../domain/cards.ts';
import { ErrorCode, type RuleViolation } from '../domain/error-codes.ts';
import type { FeeBreakdown } from '../domain/fees.ts';
import type { AuthenticatedPartner } from '../domain/partner.ts';
import { PaymentResult, ProcessStatus, ResponseCode } from '../domain/payment-status.ts';
import type { Ids } from '../ids.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { ProcessorRegistry } from '../processors/registry.ts';
import type { SaleRequest, SaleResult } from '../processors/processor.ts';
import type { Db, DbOrTx } from '../store/database.ts';
import { charities, integrationSources, organizations, paymentLines, payments } from '../store/schema/index.ts';
import { NotFoundError, ValidationError } from './errors.ts';
import type { FeeService, ResolvedFeeQuote } from './fees.ts';
import type { AchPaymentInput, CardPaymentInput, PaymentInputCommon } from './payment-input.ts';
import type { PaymentRecord } from './payment-record.ts';
import { type ValidatedMethod, validateAchPayment, validateCardPayment } from './payment-validation.ts';
import type { ProcessorRow, ProcessorService } from './processors.ts';
import type { StoredToken, TokenService } from './tokens.ts';

/** What a charge is paid with, once validated and resolved (a token is opened for the processor). */
type Instrument =
  | { kind: 'card'; number: string; paymentMethodTypeId: number; cardType: string; last4: string; expMonth: string; expYear: string; cvv?: string; name: string; token?: StoredToken }
  | { kind: 'wallet'; paymentMethodTypeId: 8 | 9; data: string; name: string }
  | { kind: 'bank'; paymentMethodTypeId: 7; routingNumber: string; accountNumber: string; last4: string; accountType: number; checkType: number; country: string; name: string; checkNumber?: string; token?: StoredToken };

interface References {
  processor: ProcessorRow;
  integrationSourceId: string | null;
  duplicateCheck: boolean;
  organizationId: string | null;
  charityId: string | null;
}

type PaymentInsert = typeof payments.$inferInsert & { id: string };

const bad = (code: number, field: string, message: string) => new ValidationError([{ code, field, message: `'${field}' ${message}.` }]);

const DEFAULT_CURRENCY: Record<string, string> = { CA: 'CAD', AU: 'AUD' };

/**
 * Card, ACH and wallet payments: validation, references, fees, the duplicate check, the
 * processor and the record, for every surface (API, pay page, recurring billing).
 *
 * A payment is written before the processor is asked (Pending, with all its lines, in one
 * transaction) and completed after (result, codes, token, in one transaction). The pending row
 * is also the duplicate check: a partial unique index allows one live payment per integration
 * source and TranId, so concurrent requests with one new TranId give exactly one processed
 * payment, in one process or many (docs/decisions.md, "Payments").
 */
export class PaymentService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #fees: FeeService;
  readonly #processors: ProcessorService;
  readonly #adapters: ProcessorRegistry;
  readonly #tokens: TokenService;
  #log: FastifyBaseLogger | undefined;

  constructor(deps: { db: Db; clock: Clock; ids: Ids; fees: FeeService; processors: ProcessorService; adapters: ProcessorRegistry; tokens: TokenService }) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#fees = deps.fees;
    this.#processors = deps.processors;
    this.#adapters = deps.adapters;
    this.#tokens = deps.tokens;
  }

  /** Where processor failures are reported (the app's logger, once it exists). */
  useLogger(log: FastifyBaseLogger) {
    this.#log = log;
  }

  /** Every rule of the card request, without processing: for callers that report all problems at once. */
  validateCard(input: CardPaymentInput): RuleViolation[] {
    return validateCardPayment(input, this.#clock.now()).violations;
  }

  validateAch(input: AchPaymentInput): RuleViolation[] {
    return validateAchPayment(input).violations;
  }

  async payCard(partner: AuthenticatedPartner, input: CardPaymentInput): Promise<PaymentRecord> {
    const validated = validateCardPayment(input, this.#clock.now());
    if (validated.violations.length > 0 || !validated.method) throw new ValidationError(validated.violations);
    return this.#pay(partner, input, validated.method, 'card');
  }

  async payAch(partner: AuthenticatedPartner, input: AchPaymentInput): Promise<PaymentRecord> {
    const validated = validateAchPayment(input);
    if (validated.violations.length > 0 || !validated.method) throw new ValidationError(validated.violations);
    return this.#pay(partner, input, validated.method, 'ach');
  }

  /** A payment of the partner by PaymentGuid. */
  async get(partnerId: string, paymentGuid: string, db: DbOrTx = this.#db): Promise<PaymentRecord> {
    const [row] = await db.select().from(payments).where(and(eq(payments.id, paymentGuid), eq(payments.partnerId, partnerId)));
    if (!row) throw new NotFoundError('No such payment.');
    return { payment: row, lines: await this.#lines(row.id, db) };
  }

  async #lines(paymentId: string, db: DbOrTx): Promise<FeeBreakdown[]> {
    const rows = await db.select({ fees: paymentLines.fees }).from(paymentLines).where(eq(paymentLines.paymentId, paymentId)).orderBy(asc(paymentLines.lineNo));
    return rows.map((r) => r.fees as unknown as FeeBreakdown);
  }

  async #pay(partner: AuthenticatedPartner, input: PaymentInputCommon, method: ValidatedMethod, requested: 'card' | 'ach'): Promise<PaymentRecord> {
    if (input.lines.length === 0) throw bad(ErrorCode.Required, 'Transactions', 'must have at least one line');
    const refs = await this.#references(partner, input);
    const instrument = await this.#instrument(partner, method, requested);
    const paymentMethodTypeId = instrument.paymentMethodTypeId;
    if (!refs.processor.paymentMethodTypes.includes(paymentMethodTypeId)) {
      const what = instrument.kind === 'card' ? instrument.cardType : instrument.kind === 'bank' ? 'ACH' : `wallet (${paymentMethodTypeId})`;
      const field = input.processorGuid ? 'ProcessorGuid' : instrument.kind === 'card' ? 'CardNum' : instrument.kind === 'bank' ? 'CheckAccountNumber' : 'PaymentMethodTypeId';
      throw bad(ErrorCode.PaymentMethodNotAccepted, field, `cannot be used: the processor does not accept ${what} payments`);
    }
    const quote = await this.#quote(partner, input, paymentMethodTypeId);
    const totalCents = quote.totalPaymentCents + (input.shippingFeeCents ?? 0) + (input.surchargeCents ?? 0);
    if (totalCents <= 0) throw bad(ErrorCode.OutOfRange, 'Transactions', 'must add up to an amount greater than 0');

    const pending = this.#pendingRow(partner, input, instrument, refs, totalCents);
    const inserted = await this.#insertPending(pending, quote.lines, input.lines);
    if (!inserted) return this.#recordDuplicate(pending, quote.lines, input.lines);

    let sale: SaleResult | undefined;
    try {
      sale = await this.#adapters.get(refs.processor.adapter).sale(this.#saleRequest(pending, instrument, input));
    } catch (err) {
      // The adapter's message is not logged: a bank library may quote the card number in it.
      this.#log?.error({ errorName: (err as Error)?.name, paymentGuid: pending.id }, 'processor call failed');
    }
    return this.#complete(partner, pending, quote.lines, instrument, input, sale);
  }

  async #references(partner: AuthenticatedPartner, input: PaymentInputCommon): Promise<References> {
    const db = this.#db;
    if (partner.kind === 'for-profit' && !input.processorGuid?.trim()) {
      throw bad(ErrorCode.ProcessorRequired, 'ProcessorGuid', 'is required for a for-profit partner');
    }
    const unknown = (field: string, what: string) => bad(ErrorCode.UnknownReference, field, `is not one of the partner's ${what}`);
    let processor: ProcessorRow;
    try {
      processor = await this.#processors.resolve(partner, { processorId: input.processorGuid?.trim() || undefined, mkey: input.mKey?.trim() || undefined });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      if (input.processorGuid?.trim()) throw unknown('ProcessorGuid', 'processors');
      if (input.mKey?.trim()) throw unknown('MKey', 'processors');
      throw bad(ErrorCode.ProcessorRequired, 'ProcessorGuid', 'is required: the partner has no default processor');
    }

    const sourceId = input.integrationSource?.trim().toLowerCase();
    const [source] = await db
      .select({ id: integrationSources.id, duplicateCheck: integrationSources.duplicateCheck })
      .from(integrationSources)
      .where(and(eq(integrationSources.partnerId, partner.id), sourceId ? eq(integrationSources.id, sourceId) : eq(integrationSources.isDefault, true)));
    if (sourceId && !source) throw unknown('IntegrationSource', 'integration sources');

    const orgId = input.organizationGuid?.trim().toLowerCase();
    const [org] = await db
      .select({ id: organizations.id })
      .from(organizations)
      .where(and(eq(organizations.partnerId, partner.id), orgId ? eq(organizations.id, orgId) : eq(organizations.isDefault, true)));
    if (orgId && !org) throw unknown('OrganizationGuid', 'organizations');

    const charityId = input.charityId?.trim().toLowerCase();
    if (charityId) {
      const [charity] = await db.select({ id: charities.id }).from(charities).where(eq(charities.id, charityId));
      if (!charity) throw bad(ErrorCode.UnknownReference, 'CharityId', 'is not a charity of the directory');
    }
    return {
      processor,
      integrationSourceId: source?.id ?? null,
      duplicateCheck: source?.duplicateCheck ?? false,
      organizationId: org?.id ?? null,
      charityId: charityId ?? null,
    };
  }

  /** The card, wallet or bank account to charge; a token is looked up and opened here. */
  async #instrument(partner: AuthenticatedPartner, method: ValidatedMethod, requested: 'card' | 'ach'): Promise<Instrument> {
    switch (method.kind) {
      case 'card':
        return {
          kind: 'card',
          number: method.number,
          paymentMethodTypeId: method.brand.paymentMethodTypeId,
          cardType: method.brand.cardType,
          last4: method.last4,
          expMonth: method.expMonth,
          expYear: method.expYear,
          cvv: method.cvv,
          name: method.name,
        };
      case 'wallet':
        return { kind: 'wallet', paymentMethodTypeId: method.paymentMethodTypeId, data: method.data, name: method.name };
      case 'bank':
        return { ...method, kind: 'bank', paymentMethodTypeId: 7 };
      case 'token': {
        const token = await this.#tokens.find(partner.id, method.ref);
        const field = 'TokenGuid';
        if (!token) throw bad(ErrorCode.UnknownReference, field, "is not one of the partner's active tokens");
        if ((token.kind === 'card') !== (requested === 'card')) {
          throw bad(ErrorCode.InvalidValue, field, requested === 'card' ? 'is a bank-account token, not a card' : 'is a card token, not a bank account');
        }
        const plain = await this.#tokens.reveal(token);
        const holder = [token.firstName, token.lastName].filter(Boolean).join(' ');
        if (token.kind === 'card') {
          const expired = checkExpiry(token.expMonth, token.expYear, this.#clock.now());
          if (expired.length > 0) throw bad(ErrorCode.CardExpired, field, 'is a card that has expired');
          return {
            kind: 'card',
            number: plain,
            paymentMethodTypeId: token.paymentMethodTypeId,
            cardType: cardBrand(token.paymentMethodTypeId as CardPaymentMethodTypeId).cardType,
            last4: token.last4,
            expMonth: token.expMonth ?? '',
            expYear: token.expYear ?? '',
            cvv: method.cvv,
            name: method.name ?? holder,
            token,
          };
        }
        return {
          kind: 'bank',
          paymentMethodTypeId: 7,
          routingNumber: token.routingNumber ?? '',
          accountNumber: plain,
          last4: token.last4,
          accountType: token.accountType ?? 1,
          checkType: token.checkType ?? 1,
          country: token.bankCountry ?? 'US',
          name: method.name ?? token.nameOnAccount ?? holder,
          token,
        };
      }
    }
  }

  async #quote(partner: AuthenticatedPartner, input: PaymentInputCommon, paymentMethodTypeId: number): Promise<ResolvedFeeQuote> {
    try {
      return await this.#fees.quote(partner, { lines: input.lines, paymentMethodTypeId });
    } catch (err) {
      // A payment is a POST that is either taken (201) or refused (400): a line whose group has
      // no schedule in the contract cannot be taken.
      if (err instanceof NotFoundError) throw new ValidationError([{ code: ErrorCode.NoFeeSchedule, field: 'Transactions', message: err.message }]);
      throw err;
    }
  }

  #pendingRow(partner: AuthenticatedPartner, input: PaymentInputCommon, instrument: Instrument, refs: References, totalCents: number): PaymentInsert {
    const text = (v: string | undefined) => (v === undefined || v.trim() === '' ? null : v.trim());
    const country = text(input.country)?.toUpperCase() ?? (instrument.kind === 'bank' ? instrument.country : null);
    const tranId = text(input.tranId);
    return {
      id: this.#ids.uuid(),
      partnerId: partner.id,
      processorId: refs.processor.id,
      organizationId: refs.organizationId,
      charityId: refs.charityId,
      integrationSourceId: refs.integrationSourceId,
      duplicateChecked: refs.duplicateCheck && tranId !== null,
      method: instrument.kind === 'bank' ? 'ach' : instrument.kind,
      paymentMethodTypeId: instrument.paymentMethodTypeId,
      tranId,
      responseCode: ResponseCode.NotProcessed,
      successful: false,
      paymentResult: PaymentResult.Pending,
      processStatus: ProcessStatus.NotProcessed,
      totalAmountCents: totalCents,
      surchargeCents: input.surchargeCents ?? null,
      shippingFeeCents: input.shippingFeeCents ?? null,
      taxableBenefitCents: input.taxableBenefitCents ?? null,
      currency: text(input.currency)?.toUpperCase() ?? DEFAULT_CURRENCY[country ?? ''] ?? 'USD',
      firstName: text(input.firstName),
      lastName: text(input.lastName),
      email: text(input.email),
      zip: text(input.zip),
      street: text(input.street),
      city: text(input.city),
      state: text(input.state)?.toUpperCase() ?? null,
      country,
      ipAddress: text(input.ipAddress),
      nameOnAccount: instrument.name || null,
      cardLast4: instrument.kind === 'card' ? instrument.last4 : null,
      cardType: instrument.kind === 'card' ? instrument.cardType : null,
      expMonth: instrument.kind === 'card' ? instrument.expMonth : null,
      expYear: instrument.kind === 'card' ? instrument.expYear : null,
      checkAccountLast4: instrument.kind === 'bank' ? instrument.last4 : null,
      checkRoutingNumber: instrument.kind === 'bank' ? instrument.routingNumber : null,
      checkNumber: instrument.kind === 'bank' ? (instrument.checkNumber ?? null) : null,
      checkAccountTypeId: instrument.kind === 'bank' ? instrument.accountType : null,
      checkTypeId: instrument.kind === 'bank' ? instrument.checkType : null,
      tokenId: instrument.kind !== 'wallet' && instrument.token ? instrument.token.id : null,
      externalConstituentId: text(input.externalConstituentId),
      externalCustomerId: text(input.externalCustomerId),
      billingDescriptor: text(input.billingDescriptor),
      externalEventId: text(input.externalEventId),
      externalEventGuid: text(input.externalEventGuid)?.toLowerCase() ?? null,
      externalEventName: text(input.externalEventName),
      epfSessionId: text(input.epfSessionId),
      mkey: text(input.mKey),
      gwShield: input.gwShieldAdditional && Object.keys(input.gwShieldAdditional).length > 0 ? input.gwShieldAdditional : null,
      recurringProfileId: input.recurring?.profileId ?? null,
      billDate: input.recurring?.billDate ?? null,
      createdAt: this.#clock.now(),
    };
  }

  #lineRows(paymentId: string, lines: readonly FeeBreakdown[], inputs: PaymentInputCommon['lines']) {
    return lines.map((fees, i) => {
      const input = inputs[i]!;
      return {
        paymentId,
        lineNo: i + 1,
        transactionSourceGroupId: fees.transactionSourceGroupId,
        externalLineId: fees.externalLineId ?? null,
        amountCents: input.amountCents,
        tipCents: input.tipCents,
        taxCents: input.taxCents,
        payFee: input.payFee,
        commissionRateOverride: input.commissionRateOverride ?? null,
        cardProcessingFeeOverride: input.cardProcessingFeeOverride ?? null,
        paymentAmountCents: fees.paymentAmountCents,
        totalFeesCents: fees.totalFeesCents,
        fees: { ...fees, externalLineId: fees.externalLineId ?? null } as unknown as Record<string, unknown>,
      };
    });
  }

  /**
   * Records the attempt as Pending with its lines, in one transaction. Returns false when the
   * duplicate check refuses it (a live payment with this TranId exists for the source).
   */
  async #insertPending(row: PaymentInsert, lines: readonly FeeBreakdown[], inputs: PaymentInputCommon['lines']): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      // The unique indexes a new row can meet are payments_tran_id_once and (a recurring charge)
      // payments_recurring_bill_once: a conflict is a duplicate.
      const inserted = await tx.insert(payments).values(row).onConflictDoNothing().returning({ id: payments.id });
      if (inserted.length === 0) return false;
      await tx.insert(paymentLines).values(this.#lineRows(row.id, lines, inputs));
      return true;
    });
  }

  /** A refused duplicate is recorded too (Failed, NotProcessed, -100): the attempt has a PaymentGuid. */
  async #recordDuplicate(pending: PaymentInsert, lines: FeeBreakdown[], inputs: PaymentInputCommon['lines']): Promise<PaymentRecord> {
    const row: PaymentInsert = {
      ...pending,
      paymentResult: PaymentResult.Failed,
      processStatus: ProcessStatus.NotProcessed,
      responseCode: ResponseCode.NotProcessed,
      successful: false,
      message: pending.recurringProfileId
        ? `Duplicate transaction: bill date ${pending.billDate} of this recurring profile was already charged or is being charged; this request was not processed.`
        : `Duplicate transaction: TranId '${pending.tranId}' was already processed for this integration source; this request was not processed.`,
      processorMessage: null,
      processedAt: this.#clock.now(),
    };
    const saved = await this.#db.transaction(async (tx) => {
      const [inserted] = await tx.insert(payments).values(row).returning();
      await tx.insert(paymentLines).values(this.#lineRows(row.id, lines, inputs));
      return inserted!;
    });
    return { payment: saved, lines };
  }

  #saleRequest(pending: PaymentInsert, instrument: Instrument, input: PaymentInputCommon): SaleRequest {
    const billing = { name: instrument.name, street: input.street?.trim() || undefined, zip: input.zip?.trim() || undefined };
    const base = { reference: pending.id!, amountCents: pending.totalAmountCents, currency: pending.currency ?? 'USD', billing, descriptor: pending.billingDescriptor ?? undefined };
    if (instrument.kind === 'card') {
      return { ...base, card: { number: instrument.number, expMonth: instrument.expMonth, expYear: instrument.expYear, cvv: instrument.cvv, paymentMethodTypeId: instrument.paymentMethodTypeId } };
    }
    if (instrument.kind === 'wallet') return { ...base, wallet: { paymentMethodTypeId: instrument.paymentMethodTypeId, data: instrument.data } };
    return {
      ...base,
      bank: { routingNumber: instrument.routingNumber, accountNumber: instrument.accountNumber, accountType: instrument.accountType, checkType: instrument.checkType, country: instrument.country },
    };
  }

  /**
   * Writes the processor's answer, and on approval stores the token asked for, in one
   * transaction. Without an answer (the processor could not be reached) the payment is Failed
   * with a general error: nothing was charged that we know of.
   */
  async #complete(
    partner: AuthenticatedPartner,
    pending: PaymentInsert,
    lines: FeeBreakdown[],
    instrument: Instrument,
    input: PaymentInputCommon,
    sale: SaleResult | undefined,
  ): Promise<PaymentRecord> {
    const approved = sale?.approved === true;
    const update: Partial<PaymentInsert> = sale
      ? {
          transactionId: sale.transactionId,
          authCode: sale.authCode,
          responseCode: sale.responseCode,
          message: sale.message,
          processorMessage: sale.processorMessage,
          successful: approved,
          paymentResult: approved ? PaymentResult.Successful : PaymentResult.Failed,
          processStatus: approved ? ProcessStatus.Authorized : ProcessStatus.Rejected,
          avsStreetStatus: sale.avsStreetStatus,
          avsZipStatus: sale.avsZipStatus,
          avsResponse: sale.avsResponse,
          cvvResponse: sale.cvvResponse,
          isSurchargeEligible: sale.isSurchargeEligible,
          processedAt: this.#clock.now(),
        }
      : {
          responseCode: ResponseCode.GeneralError,
          message: 'Processing error: the processor could not be reached. The payment was not processed.',
          processorMessage: null,
          successful: false,
          paymentResult: PaymentResult.Failed,
          processStatus: ProcessStatus.NotProcessed,
          processedAt: this.#clock.now(),
        };
    const saved = await this.#db.transaction(async (tx) => {
      const token = approved && input.tokenize && instrument.kind !== 'wallet' ? (instrument.token ?? (await this.#tokenize(partner, instrument, input, tx))) : instrument.kind !== 'wallet' ? instrument.token : undefined;
      if (token) {
        Object.assign(update, {
          tokenId: token.id,
          externalCardToken: token.kind === 'card' ? token.gatewayKey : null,
          externalCheckToken: token.kind === 'bank' ? token.gatewayKey : null,
          externalCustomerId: token.customerKey,
        });
      }
      const [row] = await tx.update(payments).set(update).where(eq(payments.id, pending.id)).returning();
      return row!;
    });
    return { payment: saved, lines };
  }

  async #tokenize(partner: AuthenticatedPartner, instrument: Instrument, input: PaymentInputCommon, tx: DbOrTx): Promise<StoredToken | undefined> {
    const holder = {
      firstName: input.firstName?.trim() || undefined,
      lastName: input.lastName?.trim() || undefined,
      street: input.street?.trim() || undefined,
      zip: input.zip?.trim() || undefined,
      externalConstituentId: input.externalConstituentId?.trim() || undefined,
      customerKey: input.externalCustomerId?.trim() || undefined,
      source: 'api' as const,
    };
    if (instrument.kind === 'card') {
      return this.#tokens.tokenizeCard(partner.id, { ...holder, cardNumber: instrument.number, expMonth: instrument.expMonth, expYear: instrument.expYear }, tx);
    }
    if (instrument.kind === 'bank') {
      return this.#tokens.tokenizeBankAccount(
        partner.id,
        {
          ...holder,
          routingNumber: instrument.routingNumber,
          accountNumber: instrument.accountNumber,
          accountType: instrument.accountType as 1 | 2,
          checkType: instrument.checkType as 1 | 2 | 3,
          country: instrument.country,
          nameOnAccount: instrument.name,
        },
        tx,
      );
    }
    return undefined;
  }
}
