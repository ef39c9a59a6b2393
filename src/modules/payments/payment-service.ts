import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Clock } from '../../platform/clock.ts';
import { cardBrand, checkCvv, checkExpiry, type CardPaymentMethodTypeId } from '../../domain/cards.ts';
import { Rule, type RuleName, type RuleViolation } from '../../domain/rules.ts';
import type { FeeBreakdown } from '../../domain/fees.ts';
import { MAX_CENTS } from '../../domain/money.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { PaymentResult, ProcessStatus, ResponseCode } from '../../domain/payment-status.ts';
import type { Ids } from '../../platform/ids.ts';
import type { ProcessorRegistry } from '../../processors/registry.ts';
import { type ProcessorAdapter, ProcessorNotReachedError, type SaleRequest, type SaleResult } from '../../processors/processor.ts';
import type { Db, DbOrTx, SqlClient } from '../../platform/database/database.ts';
import { paymentLines, payments } from '../../platform/database/schema/index.ts';
import { NotFoundError, ValidationError, surelyNotApplied } from '../../platform/errors.ts';
import type { FeeService, ResolvedFeeQuote } from '../fees/fee-service.ts';
import type { AchPaymentInput, CardPaymentInput, PaymentInputCommon } from './payment-input.ts';
import type { PaymentRecord, PaymentRow } from './payment-record.ts';
import { type Validated, type ValidatedMethod, validateAchPayment, validateCardPayment } from './payment-validation.ts';
import type { StoredToken, TokenService } from '../vault/token-service.ts';
import type { ReferenceService } from '../partners/reference-service.ts';
import { and, asc, eq, getTableColumns, inArray } from '../../platform/database/drizzle.ts';
import type { Logger } from '../../platform/logging.ts';

/** What a charge is paid with, once validated and resolved (a token is opened for the processor). */
type Instrument =
  | { kind: 'card'; number: string; paymentMethodTypeId: number; cardType: string; last4: string; expMonth: string; expYear: string; cvv?: string; name: string; token?: StoredToken }
  | { kind: 'wallet'; paymentMethodTypeId: 8 | 9; data: string; name: string }
  | { kind: 'bank'; paymentMethodTypeId: 7; routingNumber: string; accountNumber: string; last4: string; accountType: number; checkType: number; country: string; name: string; checkNumber?: string; token?: StoredToken };

interface References {
  processor: { id: string; adapter: string; paymentMethodTypes: number[] };
  integrationSourceId: string | null;
  duplicateCheck: boolean;
  organizationId: string | null;
  charityId: string | null;
}

type PaymentInsert = typeof payments.$inferInsert & { id: string };

/** A payment recorded as Pending, ready for the processor; or the record of a refused duplicate. */
type Recorded =
  | { pending: PaymentInsert; paymentId: number; quote: ResolvedFeeQuote; instrument: Instrument; refs: References }
  | { duplicate: PaymentRecord };

/**
 * What the sale call gave: the processor's answer; 'not-reached' (the adapter says the request
 * never reached it: nothing happened); or 'unknown' (any other failure: it may have charged).
 */
type SaleAnswer = SaleResult | 'not-reached' | 'unknown';

/** The message of a payment whose processor call failed in a way that leaves the charge unknown. */
export const UNKNOWN_OUTCOME_MESSAGE =
  "Processing error: the processor's answer was not received, so whether the payment went through is not known. Do not pay again: the payment is held until it is confirmed or cancelled.";

/**
 * The payment insert as fixed SQL text, built once: building it with the query builder for every
 * payment cost more CPU than the rest of the request. Every column but the identity `payment_id`.
 */
const INSERT_COLUMNS = (Object.entries(getTableColumns(payments)) as [keyof PaymentInsert, PgColumn][]).filter(
  ([, column]) => column.name !== 'payment_id',
);
const COLUMN_BY_KEY = new Map(INSERT_COLUMNS);
/** Every column of a payments row, by schema key: a row built in memory starts with all of them null. */
const ALL_COLUMN_KEYS = Object.keys(getTableColumns(payments)) as (keyof PaymentRow)[];
const UPDATE_SQL = new Map<string, string>();
/**
 * The payment statements are fixed texts (one per set of updated columns): prepared once per
 * connection, they are not parsed and planned again for every payment.
 */
const PREPARED = { prepare: true } as const;

/** The results of a payment whose processor answer may still be written (not yet resolved by an operator). */
const AWAITING_ANSWER = [PaymentResult.Pending, PaymentResult.Processing];

/**
 * Records the processor's answer on a payment still Pending (or Processing); false when it is no
 * longer pending (an operator resolved it meanwhile with `payments pending resolve`). Fixed SQL
 * text per set of columns (built once each): the query builder's cost per statement showed in
 * the payment benchmark. It returns only the id: the caller knows the rest of the row, and
 * returning all of it cost 13-18 % of the database's and a third of the driver's work for
 * both writes (docs/decisions.md, "Payments are answered from the row written").
 */
async function completePayment(sql: SqlClient, id: string, changes: Partial<PaymentInsert>): Promise<boolean> {
  const keys = Object.keys(changes).filter((k) => changes[k as keyof PaymentInsert] !== undefined) as (keyof PaymentInsert)[];
  const signature = keys.join(',');
  let text = UPDATE_SQL.get(signature);
  if (!text) {
    const sets = keys.map((k, i) => `${COLUMN_BY_KEY.get(k)!.name} = $${i + 2}`).join(', ');
    text = `UPDATE payments SET ${sets} WHERE id = $1 AND payment_result IN (${AWAITING_ANSWER.join(', ')}) RETURNING id`;
    UPDATE_SQL.set(signature, text);
  }
  const params = keys.map((k) => {
    const value = changes[k];
    return value === null ? null : COLUMN_BY_KEY.get(k)!.mapToDriverValue(value);
  });
  return (await sql.query(text, [id, ...params], PREPARED)).length > 0;
}

/**
 * The stored row of a payment, from what was written: the pending row, then the answer on it.
 * The database adds only `payment_id` (identity) and has no column defaults on payments;
 * `test/modules/payments/payment-row.test.ts` compares the two.
 */
function writtenRow(pending: PaymentInsert, paymentId: number, changes: Partial<PaymentInsert>): PaymentRow {
  const row = Object.fromEntries(ALL_COLUMN_KEYS.map((k) => [k, null])) as Record<string, unknown>;
  for (const source of [pending, changes]) {
    for (const [k, v] of Object.entries(source)) if (v !== undefined) row[k] = v;
  }
  row.paymentId = paymentId;
  return row as PaymentRow;
}

const INSERT_PAYMENT_SQL = `INSERT INTO payments (${INSERT_COLUMNS.map(([, c]) => c.name).join(', ')})
  VALUES (${INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING RETURNING id, payment_id`;

/** The pending payment and its lines in one statement; the lines travel as one jsonb parameter after the payment's columns. */
const INSERT_WITH_LINES_SQL = `WITH p AS (${INSERT_PAYMENT_SQL}), l AS (
  INSERT INTO payment_lines (payment_id, line_no, transaction_source_group_id, external_line_id, amount_cents, tip_cents, tax_cents,
                             pay_fee, commission_rate_override, card_processing_fee_override, payment_amount_cents, total_fees_cents, fees)
  SELECT p.id, l.line_no, l.transaction_source_group_id, l.external_line_id, l.amount_cents, l.tip_cents, l.tax_cents,
         l.pay_fee, l.commission_rate_override, l.card_processing_fee_override, l.payment_amount_cents, l.total_fees_cents, l.fees
  FROM p, jsonb_to_recordset($${INSERT_COLUMNS.length + 1}::jsonb) AS l(line_no smallint, transaction_source_group_id smallint, external_line_id text,
       amount_cents bigint, tip_cents bigint, tax_cents bigint, pay_fee boolean, commission_rate_override text,
       card_processing_fee_override text, payment_amount_cents bigint, total_fees_cents bigint, fees jsonb)
  RETURNING 1)
SELECT p.id, p.payment_id FROM p`;

/**
 * How long past the processor deadline a Pending payment can still be in flight (its two writes):
 * older, the request that made it stopped before recording the answer (a crash, a kill).
 */
const PENDING_IN_FLIGHT_MARGIN_MS = 10_000;
/** The processor deadline assumed when none is set (PROCESSOR_TIMEOUT's default). */
const DEFAULT_PROCESSOR_DEADLINE_MS = 20_000;
/** What a duplicate's answer says of a Pending payment past that: not "being processed" (a chaos audit saw it said of payments whose process had died). */
const STOPPED_STATE = 'its outcome not known: the request that made it stopped before the answer was recorded, and an operator will confirm it; do not pay again';

/** What a duplicate's answer says of the payment that holds its TranId or bill date, by PaymentResult. */
const LIVE_STATE: Record<number, string> = {
  [PaymentResult.Pending]: 'being processed',
  [PaymentResult.Processing]: 'held, its outcome not known yet; do not pay again',
  [PaymentResult.Successful]: 'approved',
  [PaymentResult.Refunded]: 'approved, since refunded',
  [PaymentResult.Cancelled]: 'approved, since voided',
};

const bad = (code: RuleName, field: string, message: string) => new ValidationError([{ code, field, message: `'${field}' ${message}.` }]);

const DEFAULT_CURRENCY: Record<string, string> = { CA: 'CAD', AU: 'AUD' };

/** Logged when an approval's write failed in a way that may have committed: the charge stands. */
const APPROVAL_WRITE_FAILED =
  'payment approved, but the database failed while its approval was written: the charge stands; if the payment is still Pending, resolve it as approved (payments pending resolve)';

/** The payment's columns that point at its stored token. */
function tokenColumns(token: StoredToken): Partial<typeof payments.$inferInsert> {
  return {
    tokenId: token.id,
    externalCardToken: token.kind === 'card' ? token.gatewayKey : null,
    externalCheckToken: token.kind === 'bank' ? token.gatewayKey : null,
    externalCustomerId: token.customerKey,
  };
}

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
  readonly #sql: SqlClient;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #fees: FeeService;
  readonly #adapters: ProcessorRegistry;
  readonly #tokens: TokenService;
  readonly #references: ReferenceService;
  readonly #log: Logger;

  constructor(deps: { db: Db; sql: SqlClient; clock: Clock; ids: Ids; log: Logger; fees: FeeService; adapters: ProcessorRegistry; tokens: TokenService; references: ReferenceService }) {
    this.#references = deps.references;
    this.#log = deps.log;
    this.#db = deps.db;
    this.#sql = deps.sql;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#fees = deps.fees;
    this.#adapters = deps.adapters;
    this.#tokens = deps.tokens;
  }

  /**
   * Every rule of the card request, without processing: for callers that report all problems at
   * once. Hand the result to payCard with the same input, so the rules run once.
   */
  validateCard(input: CardPaymentInput): Validated {
    return validateCardPayment(input, this.#clock.now());
  }

  validateAch(input: AchPaymentInput): Validated {
    return validateAchPayment(input);
  }

  /** `validated`: validateCard's result for this very input, if the caller has it. */
  async payCard(partner: AuthenticatedPartner, input: CardPaymentInput, validated = this.validateCard(input)): Promise<PaymentRecord> {
    if (validated.violations.length > 0 || !validated.method) throw new ValidationError(validated.violations);
    return this.#pay(partner, input, validated.method, 'card');
  }

  async payAch(partner: AuthenticatedPartner, input: AchPaymentInput, validated = this.validateAch(input)): Promise<PaymentRecord> {
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
    let recorded: Recorded;
    try {
      recorded = await this.#record(partner, input, method, requested);
    } catch (err) {
      // Everything before the processor, the Pending write aside when it may have committed.
      if (isObject(err) && !MAY_BE_RECORDED.has(err)) CHARGED_NOTHING.add(err);
      throw err;
    }
    if ('duplicate' in recorded) return recorded.duplicate;
    const { pending, paymentId, quote, instrument, refs } = recorded;

    const adapter = this.#adapters.get(refs.processor.adapter);
    let sale: SaleAnswer;
    try {
      sale = await adapter.sale(this.#saleRequest(pending, instrument, input));
    } catch (err) {
      // The adapter's message is not logged: a bank library may quote the card number in it.
      sale = err instanceof ProcessorNotReachedError ? 'not-reached' : 'unknown';
      const what = sale === 'unknown' ? 'processor call failed: outcome unknown, the payment is held for an operator' : 'processor call failed';
      this.#log.error({ errorName: (err as Error)?.name, paymentGuid: pending.id }, what);
    }
    return this.#complete(partner, pending, paymentId, quote.lines, instrument, input, sale, adapter);
  }

  /**
   * Everything before the processor is asked: references, the instrument (a stored token is
   * opened), fees, and the Pending row with its lines (or the refused duplicate's record).
   */
  async #record(partner: AuthenticatedPartner, input: PaymentInputCommon, method: ValidatedMethod, requested: 'card' | 'ach'): Promise<Recorded> {
    if (input.lines.length === 0) throw bad(Rule.Required, 'Transactions', 'must have at least one line');
    const refs = await this.#referencesOf(partner, input);
    const instrument = await this.#instrument(partner, method, requested);
    const paymentMethodTypeId = instrument.paymentMethodTypeId;
    if (!refs.processor.paymentMethodTypes.includes(paymentMethodTypeId)) {
      const what = instrument.kind === 'card' ? instrument.cardType : instrument.kind === 'bank' ? 'ACH' : `wallet (${paymentMethodTypeId})`;
      const field = input.processorGuid ? 'ProcessorGuid' : instrument.kind === 'card' ? 'CardNum' : instrument.kind === 'bank' ? 'CheckAccountNumber' : 'PaymentMethodTypeId';
      throw bad(Rule.PaymentMethodNotAccepted, field, `cannot be used: the processor does not accept ${what} payments`);
    }
    const quote = await this.#quote(partner, input, paymentMethodTypeId);
    const totalCents = quote.totalPaymentCents + (input.shippingFeeCents ?? 0) + (input.surchargeCents ?? 0);
    if (totalCents <= 0) throw bad(Rule.OutOfRange, 'Transactions', 'must add up to an amount greater than 0');
    // Each line is within the largest amount; their sum (with ShippingFee and Surcharge) must be too.
    if (totalCents > MAX_CENTS) throw bad(Rule.OutOfRange, 'Transactions', 'must add up to at most 9999999999.99 (with ShippingFee and Surcharge)');

    const pending = this.#pendingRow(partner, input, instrument, refs, totalCents);
    let paymentId: number | undefined;
    try {
      paymentId = await this.#insertWithLines(pending, quote.lines, input.lines);
    } catch (err) {
      // A write that may have committed (the connection failed around it) may have recorded it.
      if (isObject(err) && !surelyNotApplied(err)) MAY_BE_RECORDED.add(err);
      throw err;
    }
    if (paymentId === undefined) return { duplicate: await this.#recordDuplicate(pending, quote.lines, input.lines) };
    return { pending, paymentId, quote, instrument, refs };
  }

  /**
   * The processor, integration source, organization and charity of the request, in one round
   * trip: named ones must be the partner's (the charity: in the directory); unnamed ones are the
   * partner's defaults.
   */
  async #referencesOf(partner: AuthenticatedPartner, input: PaymentInputCommon): Promise<References> {
    if (partner.kind === 'for-profit' && !input.processorGuid?.trim()) {
      throw bad(Rule.ProcessorRequired, 'ProcessorGuid', 'is required for a for-profit partner');
    }
    const found = await this.#references.resolve(partner.id, {
      processorId: input.processorGuid,
      mkey: input.mKey,
      integrationSourceId: input.integrationSource,
      organizationId: input.organizationGuid,
      charityId: input.charityId,
    });
    const unknown = (field: string, what: string) => bad(Rule.UnknownReference, field, `is not one of the partner's ${what}`);
    if (!found.processor) {
      if (input.processorGuid?.trim()) throw unknown('ProcessorGuid', 'processors');
      if (input.mKey?.trim()) throw unknown('MKey', 'processors');
      throw bad(Rule.ProcessorRequired, 'ProcessorGuid', 'is required: the partner has no default processor');
    }
    if (found.named.integrationSource && !found.integrationSource) throw unknown('IntegrationSource', 'integration sources');
    if (found.named.organization && !found.organizationId) throw unknown('OrganizationGuid', 'organizations');
    if (found.named.charity && !found.charityId) throw bad(Rule.UnknownReference, 'CharityId', 'is not a charity of the directory');
    return {
      processor: found.processor,
      integrationSourceId: found.integrationSource?.id ?? null,
      duplicateCheck: found.integrationSource?.duplicateCheck ?? false,
      organizationId: found.organizationId,
      charityId: found.charityId,
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
        if (!token) throw bad(Rule.UnknownReference, field, "is not one of the partner's active tokens");
        if ((token.kind === 'card') !== (requested === 'card')) {
          throw bad(Rule.InvalidValue, field, requested === 'card' ? 'is a bank-account token, not a card' : 'is a card token, not a bank account');
        }
        const plain = await this.#tokens.reveal(token);
        const holder = [token.firstName, token.lastName].filter(Boolean).join(' ');
        if (token.kind === 'card') {
          const expired = checkExpiry(token.expMonth, token.expYear, this.#clock.now());
          if (expired.length > 0) throw bad(Rule.CardExpired, field, 'is a card that has expired');
          // The CVV's length depends on the brand, known only now: 4 digits for American Express, else 3.
          const cvvProblem = checkCvv(method.cvv, cardBrand(token.paymentMethodTypeId as CardPaymentMethodTypeId));
          if (cvvProblem) throw bad(Rule.InvalidFormat, 'CVNum', cvvProblem.message);
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
      if (err instanceof NotFoundError) throw new ValidationError([{ code: Rule.NoFeeSchedule, field: 'Transactions', message: err.message }]);
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
      // A stored payment method belongs to its constituent: a payment with it is theirs unless the request says otherwise.
      externalConstituentId: text(input.externalConstituentId) ?? (instrument.kind !== 'wallet' ? (instrument.token?.externalConstituentId ?? null) : null),
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
      payLinkId: input.payLinkId ?? null,
      createdAt: this.#clock.now(),
    };
  }

  /** The lines as rows of payment_lines (snake_case: they travel as JSON into the insert). */
  #lineRows(paymentId: string, lines: readonly FeeBreakdown[], inputs: PaymentInputCommon['lines']) {
    return lines.map((fees, i) => {
      const input = inputs[i]!;
      return {
        payment_id: paymentId,
        line_no: i + 1,
        transaction_source_group_id: fees.transactionSourceGroupId,
        external_line_id: fees.externalLineId ?? null,
        amount_cents: input.amountCents,
        tip_cents: input.tipCents,
        tax_cents: input.taxCents,
        pay_fee: input.payFee,
        commission_rate_override: input.commissionRateOverride ?? null,
        card_processing_fee_override: input.cardProcessingFeeOverride ?? null,
        payment_amount_cents: fees.paymentAmountCents,
        total_fees_cents: fees.totalFeesCents,
        fees: { ...fees, externalLineId: fees.externalLineId ?? null },
      };
    });
  }

  /**
   * Records the attempt as Pending with its lines, atomically, in one statement (a data-modifying
   * CTE). Returns its PaymentId, or undefined when the duplicate check refuses it: a live payment
   * with this TranId exists for the integration source.
   */
  async #insertWithLines(row: PaymentInsert, lines: readonly FeeBreakdown[], inputs: PaymentInputCommon['lines']): Promise<number | undefined> {
    // The unique indexes a new row can meet are payments_tran_id_once and (a recurring charge)
    // payments_recurring_bill_once: a conflict is a duplicate.
    const params = INSERT_COLUMNS.map(([key, column]) => {
      const value = row[key];
      return value === undefined || value === null ? null : column.mapToDriverValue(value);
    });
    const [inserted] = await this.#sql.query<{ payment_id: number | string }>(
      INSERT_WITH_LINES_SQL,
      [...params, JSON.stringify(this.#lineRows(row.id, lines, inputs))],
      PREPARED,
    );
    return inserted ? Number(inserted.payment_id) : undefined;
  }

  /** A refused duplicate is recorded too (Failed, NotProcessed, -100): the attempt has a PaymentGuid. */
  async #recordDuplicate(pending: PaymentInsert, lines: FeeBreakdown[], inputs: PaymentInputCommon['lines']): Promise<PaymentRecord> {
    // The payment that holds the TranId (or bill date), named so that a partner retrying after a
    // lost answer learns which payment went through (a partner audit: no call finds it by TranId).
    // With its state: a client that gave up waiting learns here whether it went through (a
    // slow-processor audit: the API has no call that reads a payment).
    const [live] = await this.#sql.query<{ id: string; payment_result: number; created_at: Date | string }>(
      pending.recurringProfileId
        ? 'SELECT id, payment_result, created_at FROM payments WHERE recurring_profile_id = $1 AND bill_date = $2 AND payment_result <> 4 LIMIT 1'
        : 'SELECT id, payment_result, created_at FROM payments WHERE integration_source_id = $1 AND tran_id = $2 AND duplicate_checked AND payment_result <> 4 LIMIT 1',
      pending.recurringProfileId ? [pending.recurringProfileId, pending.billDate] : [pending.integrationSourceId, pending.tranId],
    );
    const inFlightMs = (this.#adapters.timeoutMs ?? DEFAULT_PROCESSOR_DEADLINE_MS) + PENDING_IN_FLIGHT_MARGIN_MS;
    const stopped = live?.payment_result === PaymentResult.Pending && this.#clock.now().getTime() - new Date(live.created_at).getTime() > inFlightMs;
    const by = live ? ` (payment ${live.id}: ${stopped ? STOPPED_STATE : (LIVE_STATE[live.payment_result] ?? 'recorded')})` : '';
    const row: PaymentInsert = {
      ...pending,
      paymentResult: PaymentResult.Failed,
      processStatus: ProcessStatus.NotProcessed,
      responseCode: ResponseCode.NotProcessed,
      successful: false,
      message: pending.recurringProfileId
        ? `Duplicate transaction: bill date ${pending.billDate} of this recurring profile was already charged or is being charged${by}; this request was not processed.`
        : `Duplicate transaction: TranId '${pending.tranId}' was already processed or is being processed for this integration source${by}; this request was not processed.`,
      processorMessage: null,
      processedAt: this.#clock.now(),
    };
    await this.#insertWithLines(row, lines, inputs);
    const [saved] = await this.#db.select().from(payments).where(eq(payments.id, row.id));
    return { payment: saved!, lines };
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
    paymentId: number,
    lines: FeeBreakdown[],
    instrument: Instrument,
    input: PaymentInputCommon,
    answer: SaleAnswer,
    adapter: ProcessorAdapter,
  ): Promise<PaymentRecord> {
    const sale = typeof answer === 'string' ? undefined : answer;
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
      : answer === 'not-reached'
        ? {
            responseCode: ResponseCode.GeneralError,
            message: 'Processing error: the processor could not be reached. The payment was not processed.',
            processorMessage: null,
            successful: false,
            paymentResult: PaymentResult.Failed,
            processStatus: ProcessStatus.NotProcessed,
            processedAt: this.#clock.now(),
          }
        : {
            // The processor may have charged: Processing until an operator settles it (`payments
            // pending resolve`). The TranId stays taken, and a pay link stays closed, meanwhile.
            responseCode: ResponseCode.GeneralError,
            message: UNKNOWN_OUTCOME_MESSAGE,
            processorMessage: null,
            successful: false,
            paymentResult: PaymentResult.Processing,
            processStatus: ProcessStatus.NotProcessed,
          };
    const existing = instrument.kind !== 'wallet' ? instrument.token : undefined;
    if (existing) Object.assign(update, tokenColumns(existing));
    let tokenRefusedBy: string | undefined;
    if (approved && sale && input.tokenize === true && instrument.kind !== 'wallet' && !existing) {
      const together = await this.#completeWithToken(partner, pending.id, update, instrument, input);
      if (together.outcome === 'written') return { payment: writtenRow(pending, paymentId, together.changes), lines };
      if (together.outcome === 'not-pending') return this.#resolvedMeanwhile(partner, pending, sale, adapter, instrument);
      if (together.outcome === 'unclear') {
        // The commit may have happened: the answer and token may be recorded. Never void here.
        this.#log.error({ paymentGuid: pending.id, transactionId: sale.transactionId }, APPROVAL_WRITE_FAILED);
        throw together.error;
      }
      tokenRefusedBy = together.errorName;
    }
    let completed: boolean;
    try {
      // The processor's answer is written on its own (with the token, above, when one was asked
      // for and could be stored): nothing after the sale may turn an approved charge into an error.
      completed = await completePayment(this.#sql, pending.id, update);
    } catch (err) {
      if (approved && sale) {
        if (surelyNotApplied(err)) {
          // The answer was not recorded: take the charge back rather than leave money taken
          // without a record the partner can see (best effort; the Pending row shows what happened).
          await this.#reverse(adapter, pending, sale, instrument);
        } else {
          // The connection failed around the write, which may have committed (an outage audit
          // saw approvals recorded, then voided: a record of a charge that was taken back). The
          // charge stands; the row says approved, or Pending for an operator to resolve.
          this.#log.error({ paymentGuid: pending.id, transactionId: sale.transactionId }, APPROVAL_WRITE_FAILED);
        }
      }
      throw err;
    }
    if (!completed) return this.#resolvedMeanwhile(partner, pending, sale, adapter, instrument);
    if (tokenRefusedBy) this.#log.warn({ errorName: tokenRefusedBy, paymentGuid: pending.id }, 'approved payment kept without the token it asked for');
    return { payment: writtenRow(pending, paymentId, update), lines };
  }

  /**
   * An approval with Tokenize: the card or account is stored and the answer written in one
   * transaction, so no approval is ever recorded without the token it asked for (a process that
   * stopped between two transactions left three such payments in a chaos audit of 15,000).
   * - 'written': both are (`changes`: what was written, the token's columns included);
   * - 'not-pending': an operator had resolved the payment meanwhile; nothing was written;
   * - 'refused': the transaction failed before its commit was asked for (an expired card, a vault
   *   without its key, the database): nothing was written, and the caller records the answer alone;
   * - 'unclear': the commit itself failed, and may have happened.
   */
  async #completeWithToken(
    partner: AuthenticatedPartner,
    paymentGuid: string,
    update: Partial<PaymentInsert>,
    instrument: Instrument,
    input: PaymentInputCommon,
  ): Promise<
    | { outcome: 'written'; changes: Partial<PaymentInsert> }
    | { outcome: 'not-pending' }
    | { outcome: 'refused'; errorName: string }
    | { outcome: 'unclear'; error: unknown }
  > {
    const notPending = new Error('payment no longer pending');
    let committing = false;
    try {
      const changes = await this.#db.transaction(async (tx) => {
        const token = await this.#tokenize(partner, instrument, input, tx);
        const written = token ? { ...update, ...tokenColumns(token) } : update;
        const [row] = await tx
          .update(payments)
          .set(written)
          .where(and(eq(payments.id, paymentGuid), inArray(payments.paymentResult, AWAITING_ANSWER)))
          .returning({ id: payments.id });
        // Nothing of it stays: the token is for this payment's approval.
        if (!row) throw notPending;
        committing = true;
        return written;
      });
      return { outcome: 'written', changes };
    } catch (err) {
      if (err === notPending) return { outcome: 'not-pending' };
      if (committing) return { outcome: 'unclear', error: err };
      return { outcome: 'refused', errorName: (err as Error)?.name ?? 'Error' };
    }
  }

  /**
   * The processor answered after an operator had already recorded this payment's outcome
   * (`payments pending resolve`). The record stands and is what the caller gets. A charge the
   * record says did not happen is taken back; a record of a charge the processor declined is
   * logged for the operator to look at again.
   */
  async #resolvedMeanwhile(
    partner: AuthenticatedPartner,
    pending: PaymentInsert,
    sale: SaleResult | undefined,
    adapter: ProcessorAdapter,
    instrument: Instrument,
  ): Promise<PaymentRecord> {
    const recorded = await this.get(partner.id, pending.id);
    const charged = sale?.approved === true;
    if (charged && !recorded.payment.successful) {
      await this.#reverse(adapter, pending, sale, instrument);
    } else if (!charged && recorded.payment.successful) {
      this.#log.error({ paymentGuid: pending.id }, 'payment recorded as approved by an operator, but the processor answered without a charge: check it again');
    }
    return recorded;
  }

  /** Voids an approved sale whose outcome could not be recorded. */
  async #reverse(adapter: ProcessorAdapter, pending: PaymentInsert, sale: SaleResult, instrument: Instrument): Promise<void> {
    try {
      await adapter.void({ reference: `${pending.id}:reversal`, originalTransactionId: sale.transactionId, amountCents: pending.totalAmountCents, kind: instrument.kind === 'bank' ? 'ach' : 'card' });
      this.#log.error({ paymentGuid: pending.id, transactionId: sale.transactionId }, 'payment outcome could not be recorded; the sale was voided at the processor');
    } catch (err) {
      this.#log.error({ errorName: (err as Error)?.name, paymentGuid: pending.id, transactionId: sale.transactionId }, 'payment outcome could not be recorded and the sale could not be voided: reconcile it with the processor');
    }
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

/**
 * Errors of a payment that failed before anything was recorded or charged (a stored card the
 * vault cannot open, the database down before the Pending row): a pay link's submission gives its
 * link back for these (PayLinkCheckoutService), as for a decline.
 */
const CHARGED_NOTHING = new WeakSet<object>();

/** Errors of a Pending write that may have committed: not known to have charged nothing. */
const MAY_BE_RECORDED = new WeakSet<object>();

const isObject = (err: unknown): err is object => typeof err === 'object' && err !== null;

/** Whether a payment call failed before it recorded or charged anything. */
export function failedBeforeCharging(err: unknown): boolean {
  return isObject(err) && CHARGED_NOTHING.has(err);
}
