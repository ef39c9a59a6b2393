import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import type { FeeBreakdown as FeeBreakdownDomain } from '../../domain/fees.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { centsToWire } from '../../domain/money.ts';
import type { Services } from '../../composition.ts';
import type { FeeQuoteRequest, FeeService, ResolvedFeeQuote } from '../../modules/fees/fee-service.ts';
import { ValidationError, type Violation } from '../../platform/errors.ts';
import { MAX_TRANSACTION_LINES, TransactionLine, type TransactionLineWire, readTransactionLine, readTransactionLines } from './transaction-lines.ts';
import { Guid, JSON_CONSUMES, notFound } from './wire.ts';
import { ApiValidationError } from './problems.ts';
import { wireViolation } from './wire-names.ts';

/**
 * GET /api/fee and POST /api/fees, and the wire form of a fee breakdown, which the payment
 * responses reuse for their TransactionFees.
 */

const amount = (description: string) => Type.Number({ description });
const rate = (description: string) => Type.Number({ description: `${description} A percentage as displayed: 2.9 means 2.9 %.` });

/** The spec's fee breakdown; registered as a shared schema (`$ref: FeeBreakdown`). */
export const FeeBreakdown = Type.Object(
  {
    TransactionSourceGroupId: Type.String({ description: 'Fee category of the line.' }),
    PaymentAmount: amount('Amount charged to the payer for the line: Amount + Tip + Tax, grossed up to cover the fees when PayFee is true.'),
    CardFeeRate: rate('Card processing fee rate applied (0 for ACH).'),
    CardFeeAmount: amount('Card processing fee on Amount + Tip + Tax.'),
    CardTypeFeeAmount: amount("Flat fee of the card's brand in the contract (first line only), otherwise 0."),
    TotalCommissionRate: rate('Partner plus platform commission rate.'),
    TotalCommissionAmount: amount('PartnerCommissionAmount + PlatformCommissionAmount.'),
    PartnerCommissionRate: rate("The partner's commission rate."),
    PartnerCommissionAmount: amount('Amount + Tip + Tax times the partner commission rate.'),
    PlatformCommissionRate: rate("The provider's commission rate."),
    PlatformCommissionAmount: amount('Amount + Tip + Tax times the platform commission rate.'),
    TotalFees: amount('TotalCommissionAmount + CardFeeAmount + AchFeeAmount + PerTransFee + CardTypeFeeAmount + CardFeeOnFeeAmount.'),
    MaxOverridePartnerCommissionRate: rate('Partner commission rate (at the maximum) + processing fee rate + platform commission rate.'),
    MinOverridePartnerCommissionRate: rate('Processing fee rate + platform commission rate.'),
    PerTransFee: amount('Flat per-transaction fee of the contract (first line only).'),
    Tip: amount('Tip for the API partner, whatever PayFee says.'),
    CardFeeOnFeeAmount: amount('With PayFee: the card fee on the fees the payer covers.'),
    Tax: amount('Tax amount.'),
    AchFeeRate: rate('ACH processing fee rate applied (0 for cards).'),
    AchFeeAmount: amount('ACH processing fee, capped by the contract.'),
  },
  { $id: 'FeeBreakdown', title: 'FeeBreakdown', additionalProperties: false },
);

export type FeeBreakdownWire = Static<typeof FeeBreakdown>;

/** A fee breakdown on the wire: amounts as numbers, rates as displayable percentages. */
export function feeBreakdownToWire(b: FeeBreakdownDomain): FeeBreakdownWire {
  return {
    TransactionSourceGroupId: String(b.transactionSourceGroupId),
    PaymentAmount: centsToWire(b.paymentAmountCents),
    CardFeeRate: Number(b.cardFeeRate),
    CardFeeAmount: centsToWire(b.cardFeeAmountCents),
    CardTypeFeeAmount: centsToWire(b.cardTypeFeeAmountCents),
    TotalCommissionRate: Number(b.totalCommissionRate),
    TotalCommissionAmount: centsToWire(b.totalCommissionAmountCents),
    PartnerCommissionRate: Number(b.partnerCommissionRate),
    PartnerCommissionAmount: centsToWire(b.partnerCommissionAmountCents),
    PlatformCommissionRate: Number(b.platformCommissionRate),
    PlatformCommissionAmount: centsToWire(b.platformCommissionAmountCents),
    TotalFees: centsToWire(b.totalFeesCents),
    MaxOverridePartnerCommissionRate: Number(b.maxOverridePartnerCommissionRate),
    MinOverridePartnerCommissionRate: Number(b.minOverridePartnerCommissionRate),
    PerTransFee: centsToWire(b.perTransFeeCents),
    Tip: centsToWire(b.tipCents),
    CardFeeOnFeeAmount: centsToWire(b.cardFeeOnFeeAmountCents),
    Tax: centsToWire(b.taxCents),
    AchFeeRate: Number(b.achFeeRate),
    AchFeeAmount: centsToWire(b.achFeeAmountCents),
  };
}

/**
 * Makes `{ $ref: 'FeeBreakdown' }` usable in the routes of `app`'s scope (and puts the schema in
 * the OpenAPI components). Safe to call from several resource files.
 */
export function useFeeBreakdownSchema(app: FastifyInstance): void {
  if (!app.getSchema('FeeBreakdown')) app.addSchema(FeeBreakdown);
}

/** Payment method types a fee request may name: card brands 1-6 (6 JCB) and 7 ACH. */
const PAYMENT_METHOD_TYPE_TEXT =
  'PaymentMethodTypeId: 1 AMEX, 2 MASTERCARD, 3 VISA, 4 DISCOVER, 5 DINERSCLUB, 6 JCB, 7 ACH. Decides the card-type fee, or ACH fees for 7.';

const FeeQuery = Type.Object(
  {
    Amount: Type.String({ description: 'Line amount: digits with at most 2 decimals.', examples: ['100.00'] }),
    TransactionSourceGroupId: Type.String({ description: 'Fee category 1-12.', examples: ['1'] }),
    PayFee: Type.Boolean({ description: 'The payer covers the fees.' }),
    ProcessorGuid: Type.Optional(Guid({ description: "One of the partner's processors." })),
    CharityId: Type.Optional(Guid({ description: 'A charity of the directory.' })),
    OrganizationGuid: Type.Optional(Guid({ description: "One of the partner's organizations (internal use)." })),
    IntegrationSourceGuid: Type.Optional(Guid({ description: "One of the partner's integration sources (internal use)." })),
    TokenGuid: Type.Optional(Type.String({ maxLength: 36, description: "One of the partner's tokens; its card brand decides the card-type fee. Not with PaymentMethodTypeId." })),
    CommissionRateOverride: TransactionLine.properties.CommissionRateOverride,
    CardProcessingFeeOverride: TransactionLine.properties.CardProcessingFeeOverride,
    Tip: TransactionLine.properties.Tip,
    Tax: TransactionLine.properties.Tax,
    PaymentMethodTypeId: Type.Optional(Type.String({ description: PAYMENT_METHOD_TYPE_TEXT })),
    CreditCardTypeId: Type.Optional(Type.String({ description: 'Another name of PaymentMethodTypeId.' })),
  },
  { title: 'FeeQuery' },
);
type FeeQueryWire = Static<typeof FeeQuery>;

const FeesRequest = Type.Object(
  {
    ProcessorGuid: Type.Optional(Guid({ description: "One of the partner's processors." })),
    CharityId: Type.Optional(Guid({ description: 'A charity of the directory.' })),
    OrganizationGuid: Type.Optional(Guid({ description: "One of the partner's organizations (internal use)." })),
    IntegrationSourceGuid: Type.Optional(Guid({ description: "One of the partner's integration sources (internal use)." })),
    TokenGuid: Type.Optional(Type.String({ maxLength: 36, description: "One of the partner's tokens; its card brand decides the card-type fee. Not with PaymentMethodTypeId." })),
    PaymentMethodTypeId: Type.Optional(Type.String({ description: `${PAYMENT_METHOD_TYPE_TEXT} Applies to every line.` })),
    CreditCardTypeId: Type.Optional(Type.String({ description: 'Another name of PaymentMethodTypeId.' })),
    Transactions: Type.Array(TransactionLine, { minItems: 1, maxItems: MAX_TRANSACTION_LINES }),
  },
  { title: 'FeesRequest' },
);
type FeesRequestWire = Static<typeof FeesRequest>;

const FeesResponse = Type.Object(
  {
    TotalPaymentAmount: amount('Sum of the PaymentAmount of the lines.'),
    TotalFeesAmount: amount('Sum of the TotalFees of the lines.'),
    TotalTaxAmount: amount('Sum of the Tax of the lines.'),
    TransactionFees: Type.Array(Type.Ref('FeeBreakdown'), { description: 'One fee breakdown per line, in the order of Transactions.' }),
  },
  { title: 'FeesResponse' },
);

/**
 * PaymentMethodTypeId, under either of its names. Both may be sent only with the same value.
 */
function readPaymentMethodType(q: { PaymentMethodTypeId?: string; CreditCardTypeId?: string }, violations: RuleViolation[]): number | undefined {
  let result: number | undefined;
  for (const name of ['PaymentMethodTypeId', 'CreditCardTypeId'] as const) {
    const raw = q[name]?.trim();
    if (raw === undefined || raw === '') continue;
    const value = /^[1-7]$/.test(raw) ? Number(raw) : undefined;
    if (value === undefined) {
      violations.push({ code: Rule.InvalidValue, field: name, message: `'${name}' must be 1 (AMEX), 2 (MASTERCARD), 3 (VISA), 4 (DISCOVER), 5 (DINERSCLUB), 6 (JCB) or 7 (ACH).` });
      return undefined;
    }
    if (result !== undefined && result !== value) {
      violations.push({
        code: Rule.FeePaymentMethodTypeConflict,
        field: 'CreditCardTypeId',
        message: "'CreditCardTypeId' is another name of 'PaymentMethodTypeId'; the two differ.",
      });
      return undefined;
    }
    result = value;
  }
  return result;
}

/** The fee service's violations as these routes say them: the payment method type has two names here. */
function feeViolation(v: Violation): Violation {
  const wire = wireViolation(v);
  if (v.code !== Rule.FeeTokenWithPaymentMethodType) return wire;
  return { ...wire, message: "'TokenGuid' cannot be sent with 'PaymentMethodTypeId' or 'CreditCardTypeId': the token's card brand decides the fees." };
}

async function quote(fees: FeeService, partner: AuthenticatedPartner, request: FeeQuoteRequest): Promise<ResolvedFeeQuote> {
  try {
    return await fees.quote(partner, request);
  } catch (err) {
    if (err instanceof ValidationError && !(err instanceof ApiValidationError)) throw new ApiValidationError(err.violations.map(feeViolation));
    throw err;
  }
}

function references(q: { ProcessorGuid?: string; CharityId?: string; OrganizationGuid?: string; IntegrationSourceGuid?: string; TokenGuid?: string }) {
  const given = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());
  return {
    processorId: given(q.ProcessorGuid),
    charityId: given(q.CharityId),
    organizationId: given(q.OrganizationGuid),
    integrationSourceId: given(q.IntegrationSourceGuid),
    tokenRef: given(q.TokenGuid),
  };
}

export function feeRoutes(app: FastifyInstance, services: Services) {
  useFeeBreakdownSchema(app);

  app.get<{ Querystring: FeeQueryWire }>(
    '/fee',
    {
      schema: {
        tags: ['Fees'],
        operationId: 'getFee',
        summary: 'The fee breakdown of one transaction line.',
        description:
          'Rules and worked examples: docs/fees.md. 404 when the partner has no fee schedule for the group, or a ' +
          "referenced processor, organization, integration source or token is not the partner's (or the charity is unknown).",
        querystring: FeeQuery,
        response: { 200: Type.Ref('FeeBreakdown'), ...notFound },
      },
      // PayFee=True (as .NET writes a bool) binds like true.
      preValidation: async (request) => {
        const q = request.query as Record<string, unknown>;
        if (typeof q.PayFee === 'string' && /^(true|false)$/i.test(q.PayFee)) q.PayFee = q.PayFee.toLowerCase();
      },
    },
    async (request) => {
      const q = request.query;
      const violations: RuleViolation[] = [];
      const paymentMethodTypeId = readPaymentMethodType(q, violations);
      const wireLine: TransactionLineWire = {
        TransactionSourceGroupId: q.TransactionSourceGroupId,
        Amount: q.Amount,
        PayFee: q.PayFee,
        CommissionRateOverride: q.CommissionRateOverride,
        CardProcessingFeeOverride: q.CardProcessingFeeOverride,
        Tip: q.Tip,
        Tax: q.Tax,
      };
      const read = readTransactionLine(wireLine, (name) => name);
      violations.push(...read.violations);
      if (violations.length > 0 || !read.line) throw new ApiValidationError(violations);
      const quoted = await quote(services.fees, request.partner, {
        lines: [read.line],
        paymentMethodTypeId,
        ...references(q),
        lineField: (_i, field) => field,
      });
      return feeBreakdownToWire(quoted.lines[0]!);
    },
  );

  app.post<{ Body: FeesRequestWire }>(
    '/fees',
    {
      schema: {
        tags: ['Fees'],
        operationId: 'calculateFees',
        summary: 'The fee breakdowns of several transaction lines of one payment, and their totals.',
        description:
          'PaymentMethodTypeId applies to every line; the flat fees (per transaction, card type) are charged once, on the ' +
          'first line. Rules and worked examples: docs/fees.md.',
        consumes: JSON_CONSUMES,
        body: FeesRequest,
        response: { 200: FeesResponse, ...notFound },
      },
    },
    async (request) => {
      const body = request.body;
      const violations: RuleViolation[] = [];
      const paymentMethodTypeId = readPaymentMethodType(body, violations);
      const read = readTransactionLines(body.Transactions);
      violations.push(...read.violations);
      if (violations.length > 0) throw new ApiValidationError(violations);
      const quoted = await quote(services.fees, request.partner, { lines: read.lines, paymentMethodTypeId, ...references(body) });
      return {
        TotalPaymentAmount: centsToWire(quoted.totalPaymentCents),
        TotalFeesAmount: centsToWire(quoted.totalFeesCents),
        TotalTaxAmount: centsToWire(quoted.totalTaxCents),
        TransactionFees: quoted.lines.map(feeBreakdownToWire),
      };
    },
  );
}
