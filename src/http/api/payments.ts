import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { type RuleViolation, firstPerField } from '../../domain/rules.ts';
import { centsToWire } from '../../domain/money.ts';
import type { Services } from '../../composition.ts';
import type { AchPaymentInput, CardPaymentInput, PaymentInputCommon } from '../../modules/payments/payment-input.ts';
import type { PaymentRecord } from '../../modules/payments/payment-record.ts';
import { PAYMENT_LIMITS } from '../../modules/payments/payment-validation.ts';
import { wireName, wireViolation } from './wire-names.ts';
import { WIRE_CARD_TYPES, wireCardType } from './card-type.ts';
import { feeBreakdownToWire, useFeeBreakdownSchema } from './fees.ts';
import { dropMistyped } from './mistyped.ts';
import { schemaViolations } from './schema-errors.ts';
import { MAX_TRANSACTION_LINES, TransactionLine, type TransactionLineWire, readAmount, readTransactionLines } from './transaction-lines.ts';
import { EMPTY_GUID, Guid, JSON_CONSUMES, Nullable, PaymentResultWire, ProcessStatusWire } from './wire.ts';
import { ApiValidationError } from './problems.ts';
import { failedBeforeCharging } from '../../modules/payments/payment-service.ts';

/** Idempotency-Key: a failed payment may be run again with its key only if it charged and recorded nothing. */
const idempotent = { changedNothing: failedBeforeCharging };

/** POST /api/payment and POST /api/paymentAch: the spec's request tables and the payment response. */

/** The spec's lengths by surface A's names: the service's limits, and the amounts' lengths as text. */
const LIMITS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(Object.entries(PAYMENT_LIMITS).map(([field, limit]) => [wireName(field), limit])),
  ShippingFee: 7,
  TaxableBenefit: 7,
  Surcharge: 7,
};

/** The longest a wire field may be; a name without a limit is a mistake of this file, found when it loads. */
function maxLength(field: string): number {
  const limit = LIMITS[field];
  if (limit === undefined) throw new Error(`no length limit for ${field}`);
  return limit;
}

const text = (field: string, description?: string) => Type.Optional(Type.String({ maxLength: maxLength(field), ...(description ? { description } : {}) }));

/** The spec's fraud-screening fields (all strings). */
const GW_SHIELD_FIELDS = [
  'ProductDescription', 'ProductItem', 'ProductType', 'ProductQuantity', 'SessionId', 'BillToPhoneNumber',
  'ShippingAddressStreet1', 'ShippingAddressStreet2', 'ShippingAddressCountry', 'ShippingAddressCity',
  'ShippingAddressEmail', 'ShippingAddressName', 'ShippingAddressZip', 'ShippingAddressState', 'ShipToPhoneNumber',
  'ShipToPremiseForUK', 'ShipToStreetForUK', 'BillToPremiseForUK', 'BillToStreetForUK',
] as const;

const GwShieldAdditional = Type.Object(
  Object.fromEntries(GW_SHIELD_FIELDS.map((name) => [name, Type.Optional(Type.String({ maxLength: 500 }))])) as Record<string, TSchema>,
  { title: 'GwShieldAdditional', description: 'Fraud-screening data.' },
);

const common = {
  ProcessorGuid: Type.Optional(Guid({ description: 'Optional for a non-profit partner (its default processor); required for a for-profit partner.' })),
  CharityId: Type.Optional(Guid({ description: 'Charity GUID from charity search.' })),
  OrganizationGuid: Type.Optional(Guid({ description: 'internal use' })),
  MKey: text('MKey', 'internal use: the processor by its MKey'),
  IntegrationSource: Type.Optional(Guid({ description: "internal use: one of the partner's integration sources (default: the partner's default source)" })),
  Zip: text('Zip', 'US 12345 or 12345-6789, CA A1A 1A1, AU 1234, by Country; any of the three without Country.'),
  Street: text('Street'),
  Email: Type.String({ maxLength: maxLength('Email'), description: 'Payer email address (required).' }),
  City: text('City'),
  Country: text('Country', '2-letter country code.'),
  Currency: text('Currency', '3-letter currency code; default from Country (CAD for CA, AUD for AU, else USD).'),
  ExternalConstituentId: text('ExternalConstituentId', 'Donor identifier per product.'),
  ExternalCustomerId: text('ExternalCustomerId', 'Gateway customer key of a pre-existing customer.'),
  FirstName: text('FirstName'),
  LastName: text('LastName'),
  BillingDescriptor: text('BillingDescriptor', 'Text shown on the bank statement.'),
  IpAddress: Type.String({ maxLength: maxLength('IpAddress'), description: 'IPv4 or IPv6 address where the transaction originates (required).' }),
  ExternalEventId: text('ExternalEventId'),
  ExternalEventGuid: Type.Optional(Guid()),
  ExternalEventName: text('ExternalEventName'),
  ShippingFee: text('ShippingFee', 'Added to the total amount.'),
  TaxableBenefit: text('TaxableBenefit', 'Reported only; no calculation uses it.'),
  TranId: text('TranId', 'Unique id per integration source: with duplicate checking on, a TranId of an earlier successful payment is not processed again.'),
  EpfSessionId: text('EpfSessionId', 'internal use'),
  Transactions: Type.Array(TransactionLine, { minItems: 1, maxItems: MAX_TRANSACTION_LINES, description: 'At least one line.' }),
  Tokenize: Type.Optional(Type.Boolean({ description: 'true stores the card or bank account and returns its tokens.' })),
};

const CardPaymentRequest = Type.Object(
  {
    ...common,
    CardNum: text('CardNum', 'Card number (spaces and dashes ignored); required unless a wallet transaction.'),
    CardType: text('CardType', 'Ignored: set from CardNum.'),
    ExpMonth: text('ExpMonth', 'Two digits, 01-12; required unless a wallet transaction.'),
    ExpYear: text('ExpYear', 'Two digits; required unless a wallet transaction.'),
    CVNum: text('CVNum', '3 digits, 4 for American Express.'),
    NameOnCard: Type.String({ maxLength: maxLength('NameOnCard') }),
    State: text('State', '2-letter US state code; up to 3 letters outside the US.'),
    GwShieldAdditional: Type.Optional(GwShieldAdditional),
    PaymentMethodTypeId: Type.Optional(Type.String({ description: 'internal use: 8 wallet A, 9 wallet B.' })),
    ExternalPaymentData: text('ExternalPaymentData', 'internal use: the wallet payment data.'),
    Surcharge: text('Surcharge', 'Calculated surcharge added to the total amount.'),
  },
  { title: 'CardPaymentRequest' },
);

const AchPaymentRequest = Type.Object(
  {
    ...common,
    CheckRoutingNumber: Type.String({ maxLength: maxLength('CheckRoutingNumber'), description: 'US 9-digit ABA; CA 0 + 3-digit institution + 5-digit transit; AU 6-digit BSB.' }),
    CheckAccountNumber: Type.String({ maxLength: maxLength('CheckAccountNumber'), description: 'US 8-12 digits, CA 7-12, AU 3-9.' }),
    CheckNumber: text('CheckNumber'),
    CheckAccountTypeId: Type.String({ description: '1 Checking, 2 Savings.' }),
    CheckTypeId: Type.String({ description: '1 Personal, 2 Corporate, 3 Government.' }),
    NameOnCheck: Type.String({ maxLength: maxLength('NameOnCheck') }),
    State: Type.String({ maxLength: maxLength('State'), description: '2-letter US state code; up to 3 letters outside the US.' }),
    PaymentMethodTypeId: Type.Optional(Type.String({ description: 'If sent, 7 (ACH).' })),
  },
  { title: 'AchPaymentRequest' },
);

const str = Nullable(Type.String());
export const PaymentResponse = Type.Object(
  {
    Successful: Type.Boolean({ description: 'true only for an approval.' }),
    Message: str,
    ProcessorMessage: str,
    AuthCode: str,
    TransactionId: Nullable(Type.String({ description: 'Gateway transaction id (PaymentExternalId of refunds and voids).' })),
    PaymentGuid: Type.String({ format: 'uuid' }),
    PaymentId: Type.Integer({ format: 'int32' }),
    ResponseCode: Nullable(Type.String({ description: '0 approved, -100 not processed (duplicate), 12 declined, 13 referral, 50 insufficient funds, 24 invalid expiration date, 22 invalid ABA number, 23 invalid account number, 99 general error.' })),
    PaymentResult: PaymentResultWire('1 Pending, 2 Processing, 3 Successful, 4 Failed, 5 Refunded, 6 Cancelled.'),
    ProcessStatus: ProcessStatusWire('1 NotProcessed, 2 Authorized, 4 Settled, 5 Rejected, 6 RefundRequired, 7 AwaitingRefund, 8 Refunded, 9 Cancelled, 10 Chargeback, 11 RefundRejected.'),
    TotalAmount: Type.Number({ description: 'Total charged: the lines’ PaymentAmount plus ShippingFee and Surcharge.' }),
    TotalSurcharge: Nullable(Type.Number()),
    AVSStreetStatus: str,
    AVSZipStatus: str,
    AVSResponse: str,
    CVVResponse: str,
    ExternalCardToken: Nullable(Type.String({ description: 'CcInfoKey of the stored card.' })),
    ExternalCheckToken: Nullable(Type.String({ description: 'CheckInfoKey of the stored bank account.' })),
    ExternalCustomerId: str,
    ExternalConstituentId: str,
    TokenGuid: Nullable(Type.String({ format: 'uuid' })),
    TransactionFees: Type.Array(Type.Ref('FeeBreakdown')),
    OrganizationGuid: Type.String({ format: 'uuid', description: `internal use; ${EMPTY_GUID} when the payment has no organization (a for-profit partner's).` }),
    ProcessorGuid: Nullable(Type.String({ format: 'uuid' })),
    FirstName: str,
    LastName: str,
    EmailAddress: str,
    PostalCode: str,
    AddressLine1: str,
    City: str,
    ProvinceCode: str,
    CountryCode: str,
    CardNum: Nullable(Type.String({ description: 'Last 4 digits of the card.' })),
    CardType: Nullable(Type.String({ enum: [...WIRE_CARD_TYPES], description: 'American Express, Mastercard, Visa, Discover, Diners Club or Undefined (a wallet, or a JCB card: PaymentMethodTypeId 6).' })),
    ExpMonth: str,
    ExpYear: str,
    Currency: str,
    PaymentMethodTypeId: Nullable(Type.Integer({ format: 'int32' })),
    IsSurchargeEligible: Nullable(Type.Boolean()),
    CheckAccountNum: Nullable(Type.String({ description: 'Last 4 digits of the bank account.' })),
    TranId: str,
    EpfSessionId: str,
    PaymentDate: Type.String({ format: 'date-time' }),
  },
  { $id: 'PaymentResponse', title: 'PaymentResponse' },
);

export type PaymentResponseWire = Static<typeof PaymentResponse>;

/** Makes `{ $ref: 'PaymentResponse' }` usable in `app`'s scope (the pay link result reuses it). */
export function usePaymentResponseSchema(app: FastifyInstance): void {
  useFeeBreakdownSchema(app);
  if (!app.getSchema('PaymentResponse')) app.addSchema(PaymentResponse);
}

/** The spec's payment response of a recorded payment. */
export function paymentToWire({ payment: p, lines }: PaymentRecord): PaymentResponseWire {
  const wallet = p.method === 'wallet';
  return {
    Successful: p.successful,
    Message: p.message,
    ProcessorMessage: p.processorMessage,
    AuthCode: p.authCode,
    TransactionId: p.transactionId,
    PaymentGuid: p.id,
    PaymentId: p.paymentId,
    ResponseCode: p.responseCode,
    PaymentResult: p.paymentResult,
    ProcessStatus: p.processStatus,
    TotalAmount: centsToWire(p.totalAmountCents),
    TotalSurcharge: p.surchargeCents === null ? null : centsToWire(p.surchargeCents),
    AVSStreetStatus: p.avsStreetStatus,
    AVSZipStatus: p.avsZipStatus,
    AVSResponse: p.avsResponse,
    CVVResponse: p.cvvResponse,
    ExternalCardToken: p.externalCardToken,
    ExternalCheckToken: p.externalCheckToken,
    ExternalCustomerId: p.externalCustomerId,
    ExternalConstituentId: p.externalConstituentId,
    TokenGuid: p.tokenId,
    TransactionFees: lines.map(feeBreakdownToWire),
    OrganizationGuid: p.organizationId ?? EMPTY_GUID,
    ProcessorGuid: p.processorId,
    FirstName: p.firstName,
    LastName: p.lastName,
    EmailAddress: p.email,
    PostalCode: p.zip,
    AddressLine1: p.street,
    City: p.city,
    ProvinceCode: p.state,
    CountryCode: p.country,
    CardNum: p.cardLast4,
    CardType: p.method === 'card' ? wireCardType(p.cardType) : wallet ? 'Undefined' : null,
    ExpMonth: p.expMonth,
    ExpYear: p.expYear,
    Currency: p.currency,
    PaymentMethodTypeId: p.paymentMethodTypeId,
    IsSurchargeEligible: p.isSurchargeEligible,
    CheckAccountNum: p.checkAccountLast4,
    TranId: p.tranId,
    EpfSessionId: p.epfSessionId,
    PaymentDate: p.createdAt.toISOString(),
  };
}

type CommonWire = Static<typeof AchPaymentRequest> & Static<typeof CardPaymentRequest>;

/** An optional amount field in cents, or a violation naming it. */
function readOptionalAmount(raw: string | undefined, field: string, violations: RuleViolation[]) {
  if (raw === undefined || raw.trim() === '') return undefined;
  const cents = readAmount(raw, field, false);
  if (typeof cents === 'number') return cents;
  violations.push(cents);
  return undefined;
}

/** Reads the wire request into the service's input; amounts and lines become cents here. */
function readCommon(body: Partial<CommonWire>, violations: RuleViolation[]): PaymentInputCommon {
  const lines = readTransactionLines((body.Transactions ?? []) as TransactionLineWire[]);
  violations.push(...lines.violations);
  const amount = (raw: string | undefined, field: string) => readOptionalAmount(raw, field, violations);
  return {
    processorGuid: body.ProcessorGuid,
    mKey: body.MKey,
    charityId: body.CharityId,
    organizationGuid: body.OrganizationGuid,
    integrationSource: body.IntegrationSource,
    lines: lines.lines,
    shippingFeeCents: amount(body.ShippingFee, 'ShippingFee'),
    taxableBenefitCents: amount(body.TaxableBenefit, 'TaxableBenefit'),
    email: body.Email,
    firstName: body.FirstName,
    lastName: body.LastName,
    street: body.Street,
    city: body.City,
    state: body.State,
    zip: body.Zip,
    country: body.Country,
    currency: body.Currency,
    ipAddress: body.IpAddress,
    externalConstituentId: body.ExternalConstituentId,
    externalCustomerId: body.ExternalCustomerId,
    billingDescriptor: body.BillingDescriptor,
    externalEventId: body.ExternalEventId,
    externalEventGuid: body.ExternalEventGuid,
    externalEventName: body.ExternalEventName,
    tranId: body.TranId,
    epfSessionId: body.EpfSessionId,
    tokenize: body.Tokenize,
  };
}

/** Every violation of the request at once: schema, lines and amounts, then the payment rules (one per field). */
function allViolations(request: FastifyRequest, own: RuleViolation[], rules: RuleViolation[]): RuleViolation[] {
  const fromSchema = request.validationError ? schemaViolations(request.validationError.validation, 'body') : [];
  return firstPerField([...fromSchema, ...own, ...rules]);
}

const paymentSchema = (operationId: string, title: string, body: TSchema) => ({
  tags: ['Payments'],
  operationId,
  summary: title,
  consumes: JSON_CONSUMES,
  body,
  response: { 201: { ...Type.Ref('PaymentResponse'), description: 'Every processed attempt, approved or declined (Successful says which).' } },
});

/**
 * The spec's GwShieldAdditional fields that were sent: a property it does not have is ignored, as
 * anywhere else in a request (it used to be stored as sent, whatever its value).
 */
function gwShieldOf(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const out: Record<string, string> = {};
  for (const field of GW_SHIELD_FIELDS) {
    const v = (value as Record<string, unknown>)[field];
    if (typeof v === 'string') out[field] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function paymentRoutes(app: FastifyInstance, services: Services) {
  usePaymentResponseSchema(app);

  app.post<{ Body: Static<typeof CardPaymentRequest> }>(
    '/payment',
    { attachValidation: true, config: { idempotent }, schema: paymentSchema('createPayment', 'Charge a card (or a wallet).', CardPaymentRequest) },
    async (request, reply) => {
      const body = (dropMistyped(request.body, CardPaymentRequest) ?? {}) as Partial<Static<typeof CardPaymentRequest>>;
      const own: RuleViolation[] = [];
      const input: CardPaymentInput = {
        ...readCommon(body as Partial<CommonWire>, own),
        cardNum: body.CardNum,
        cardType: body.CardType,
        expMonth: body.ExpMonth,
        expYear: body.ExpYear,
        cvNum: body.CVNum,
        nameOnCard: body.NameOnCard,
        paymentMethodTypeId: body.PaymentMethodTypeId,
        externalPaymentData: body.ExternalPaymentData,
        // Card requests only: the spec's ACH request has neither.
        surchargeCents: readOptionalAmount(body.Surcharge, 'Surcharge', own),
        gwShieldAdditional: gwShieldOf(body.GwShieldAdditional),
      };
      const validated = services.payments.validateCard(input);
      const violations = allViolations(request, own, validated.violations.map((v) => wireViolation(v)));
      if (violations.length > 0) throw new ApiValidationError(violations);
      const record = await services.payments.payCard(request.partner, input, validated);
      return reply.code(201).send(paymentToWire(record));
    },
  );

  app.post<{ Body: Static<typeof AchPaymentRequest> }>(
    '/paymentAch',
    { attachValidation: true, config: { idempotent }, schema: paymentSchema('createAchPayment', 'Debit a bank account (ACH).', AchPaymentRequest) },
    async (request, reply) => {
      const body = (dropMistyped(request.body, AchPaymentRequest) ?? {}) as Partial<Static<typeof AchPaymentRequest>>;
      const own: RuleViolation[] = [];
      const input: AchPaymentInput = {
        ...readCommon(body as Partial<CommonWire>, own),
        checkRoutingNumber: body.CheckRoutingNumber,
        checkAccountNumber: body.CheckAccountNumber,
        checkNumber: body.CheckNumber,
        checkAccountTypeId: body.CheckAccountTypeId,
        checkTypeId: body.CheckTypeId,
        nameOnCheck: body.NameOnCheck,
        paymentMethodTypeId: body.PaymentMethodTypeId,
      };
      const validated = services.payments.validateAch(input);
      const violations = allViolations(request, own, validated.violations.map((v) => wireViolation(v)));
      if (violations.length > 0) throw new ApiValidationError(violations);
      const record = await services.payments.payAch(request.partner, input, validated);
      return reply.code(201).send(paymentToWire(record));
    },
  );
}
