import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { BILLING_FREQUENCIES, type BillingFrequency, type CalendarDate, parseBillingFrequency, parseCalendarDate } from '../../domain/billing-dates.ts';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import { TRANSACTION_SOURCE_GROUPS } from '../../domain/fee-schedule.ts';
import { type Cents, centsToWire } from '../../domain/money.ts';
import type { Services } from '../../composition.ts';
import type { RecurringProfile, RecurringProfileTerms } from '../../modules/recurring/profile-service.ts';
import { isViolation, readAmount, readCardProcessingFeeOverride, readCommissionRateOverride } from './transaction-lines.ts';
import { Guid, JSON_CONSUMES, Nullable, notFound } from './wire.ts';
import { ApiValidationError } from './problems.ts';
import { wireViolation } from './wire-names.ts';

/** POST, PUT and DELETE /api/recurringProfile: the spec's recurring profile requests and response. */

const FREQUENCIES_TEXT = BILLING_FREQUENCIES.join(', ');

const terms = {
  Amount: Type.String({ minLength: 1, description: 'Amount per bill date, e.g. 25.00. With PayFee: see PreFeeAmount.', examples: ['25.00'] }),
  StartDate: Type.String({ minLength: 1, description: 'Contract start, yyyy-MM-dd.', examples: ['2026-11-21'] }),
  EndDate: Type.Optional(Type.String({ description: 'yyyy-MM-dd, after StartDate. Bill dates up to and including it are charged; then the profile is completed.' })),
  NextBillDate: Type.Optional(
    Type.String({
      description:
        'yyyy-MM-dd: the first (create) or next (update) charge; after StartDate, not in the past, not after EndDate. ' +
        "Omitted on create: the schedule's first bill date after StartDate that is not in the past. Its day of the month anchors month steps.",
    }),
  ),
  BillingFrequency: Type.String({ minLength: 1, description: `One of ${FREQUENCIES_TEXT} (any letter case).`, examples: ['Monthly'] }),
  PreFeeAmount: Type.Optional(
    Type.String({ description: 'With PayFee: the amount before fees; each charge adds the fees to it (the partner nets PreFeeAmount). Not more than Amount.' }),
  ),
  PayFee: Type.Optional(
    Type.Boolean({ description: 'The payer covers the fees: each charge is PreFeeAmount (else Amount) grossed up by the fee rules. Default false: fees come out of Amount.' }),
  ),
  TransactionSourceGroupId: Type.Optional(Type.String({ description: 'Fee category 1-12; default 12 for a for-profit partner, 1 (Donation) for a non-profit one.' })),
  ExternalEventId: Type.Optional(Type.String({ maxLength: 10 })),
  ExternalEventGuid: Type.Optional(Guid()),
  ExternalEventName: Type.Optional(Type.String({ maxLength: 500 })),
  Surcharge: Type.Optional(Type.String({ maxLength: 7, description: 'Calculated surcharge added to each charge.' })),
  CommissionRateOverride: Type.Optional(
    Type.String({ description: 'Total commission percentage (at most 4 decimals), clamped into [platform, maximum] of the contract at each charge.' }),
  ),
  CardProcessingFeeOverride: Type.Optional(Type.String({ description: 'Card processing fee percentage, 0 <= x < 100, at most 4 decimals. Not used for ACH.' })),
};

const IntegrationSource = Type.Optional(Guid({ description: "internal use: one of the partner's integration sources." }));

const CreateRecurringProfileRequest = Type.Object(
  {
    IntegrationSource,
    TokenGuid: Type.String({ minLength: 1, maxLength: 36, description: "One of the partner's tokens: its TokenGuid, or its CcInfoKey / CheckInfoKey." }),
    ...terms,
  },
  { title: 'CreateRecurringProfileRequest' },
);

const UpdateRecurringProfileRequest = Type.Object(
  {
    IntegrationSource,
    RecurringProfileGuid: Guid({ description: 'The profile to change.' }),
    Amount: Type.Optional(terms.Amount),
    StartDate: Type.Optional(terms.StartDate),
    EndDate: terms.EndDate,
    NextBillDate: terms.NextBillDate,
    BillingFrequency: Type.Optional(terms.BillingFrequency),
    PreFeeAmount: terms.PreFeeAmount,
    PayFee: terms.PayFee,
    TransactionSourceGroupId: terms.TransactionSourceGroupId,
    ExternalEventId: terms.ExternalEventId,
    ExternalEventGuid: terms.ExternalEventGuid,
    ExternalEventName: terms.ExternalEventName,
    CommissionRateOverride: terms.CommissionRateOverride,
    CardProcessingFeeOverride: terms.CardProcessingFeeOverride,
    UseOriginalFees: Type.Optional(
      Type.Boolean({
        description: "false: from now on the profile uses the partner's current fee rates. Omitted or true: it keeps the rates it has (those of its creation).",
      }),
    ),
  },
  { title: 'UpdateRecurringProfileRequest' },
);

const CancelRecurringProfileQuery = Type.Object(
  {
    RecurringProfileGuid: Guid({ description: 'The profile to cancel.' }),
    IntegrationSource: Type.Optional(Type.String({ description: 'internal use' })),
  },
  { title: 'CancelRecurringProfileQuery' },
);

const RecurringProfileResponse = Type.Object(
  {
    Successful: Type.Boolean({ description: 'true for every success response.' }),
    Message: Type.String(),
    ProcessorMessage: Type.String({ description: 'No processor is called by these operations; says so.' }),
    TransactionId: Nullable(Type.String({ description: 'Always null.' })),
    RecurringProfileGuid: Type.String({ format: 'uuid' }),
    RecurringProfileId: Type.Integer({ format: 'int32' }),
    ResponseCode: Type.String({ description: 'OK' }),
  },
  { title: 'RecurringProfileResponse' },
);

const STATUS_NAMES = { active: 'Active', suspended: 'Suspended', completed: 'Completed', cancelled: 'Cancelled' } as const;

/** GET /api/recurringProfile (an extension: the spec has no read): the response above and the profile's state. */
const RecurringProfileDetails = Type.Object(
  {
    ...RecurringProfileResponse.properties,
    Status: Type.Union([Type.Literal('Active'), Type.Literal('Suspended'), Type.Literal('Completed'), Type.Literal('Cancelled')], {
      description: 'Active (billing), Suspended (failed charges used up its retries; a PUT with a NextBillDate resumes it), Completed (past EndDate), Cancelled.',
    }),
    BillingFrequency: Type.String({ enum: [...BILLING_FREQUENCIES], description: 'As the spec spells it, whatever letter case the profile was made with.' }),
    Amount: Type.Number({ description: 'Amount per bill date (with PayFee: what the first charge was).' }),
    PreFeeAmount: Nullable(Type.Number({ description: 'With PayFee: the amount before fees.' })),
    PayFee: Type.Boolean(),
    TransactionSourceGroupId: Type.String(),
    StartDate: Type.String({ format: 'date', description: 'yyyy-MM-dd' }),
    EndDate: Nullable(Type.String({ format: 'date', description: 'yyyy-MM-dd' })),
    NextBillDate: Type.String({ format: 'date', description: 'yyyy-MM-dd: the bill date charged next.' }),
    NextAttemptDate: Type.String({ format: 'date', description: 'yyyy-MM-dd: when the next charge is tried (after a failure, a retry day; else NextBillDate).' }),
    FailedAttempts: Type.Integer({ description: 'Failed charges of NextBillDate so far.' }),
    LastFailure: Nullable(Type.String({ description: 'Why the last charge failed, while NextBillDate is unpaid.' })),
    LastPaymentGuid: Nullable(Type.String({ format: 'uuid', description: 'The payment of the last charge tried (for a profile a pay link started: the link\'s payment, until the first charge).' })),
    TokenGuid: Type.String({ format: 'uuid' }),
    ProcessorGuid: Type.String({ format: 'uuid' }),
  },
  { title: 'RecurringProfileDetails' },
);

const ReadRecurringProfileQuery = Type.Object(
  { RecurringProfileGuid: Guid({ description: 'The profile to read.' }) },
  { title: 'ReadRecurringProfileQuery' },
);

function toDetailsWire(row: RecurringProfile): Static<typeof RecurringProfileDetails> {
  return {
    ...toWire(row, 'Recurring profile found.'),
    Status: STATUS_NAMES[row.status],
    BillingFrequency: row.billingFrequency,
    Amount: centsToWire(row.amountCents),
    PreFeeAmount: row.preFeeAmountCents === null ? null : centsToWire(row.preFeeAmountCents),
    PayFee: row.payFee,
    TransactionSourceGroupId: String(row.transactionSourceGroupId),
    StartDate: row.startDate,
    EndDate: row.endDate,
    NextBillDate: row.nextBillDate,
    NextAttemptDate: row.nextAttemptOn,
    FailedAttempts: row.failedAttempts,
    // A failed charge's reason may be a service's violation, with `{field}` placeholders.
    LastFailure: row.lastFailure === null ? null : wireViolation({ code: Rule.InvalidValue, message: row.lastFailure }).message,
    LastPaymentGuid: row.lastPaymentId,
    TokenGuid: row.tokenId,
    ProcessorGuid: row.processorId,
  };
}

type CreateWire = Static<typeof CreateRecurringProfileRequest>;
type UpdateWire = Static<typeof UpdateRecurringProfileRequest>;

// Said of this request: a profile's own charges are its payments (LastPaymentGuid), made by the billing runs.
const NOTHING_CHARGED = 'This request made no processor call; the profile is charged by the billing runs.';

function toWire(row: RecurringProfile, message: string): Static<typeof RecurringProfileResponse> {
  return {
    Successful: true,
    Message: message,
    ProcessorMessage: NOTHING_CHARGED,
    TransactionId: null,
    RecurringProfileGuid: row.id,
    RecurringProfileId: row.profileId,
    ResponseCode: 'OK',
  };
}

/** A `yyyy-MM-dd` query or body value as a calendar date, or the violation that names the field. */
export function readBillDate(raw: string, field: string): CalendarDate | RuleViolation {
  if (raw.trim() === '') return { code: Rule.Required, field, message: `'${field}' is required.` };
  const parsed = parseCalendarDate(raw);
  if (parsed.ok) return parsed.date;
  return parsed.problem === 'malformed'
    ? { code: Rule.InvalidFormat, field, message: `'${field}' must be a date in the form yyyy-MM-dd.` }
    : { code: Rule.InvalidFormat, field, message: `'${field}' is not a date of the calendar.` };
}


/** Reads the wire terms that were sent into domain values; every problem goes to `violations`. */
function readTerms(body: Partial<CreateWire>, violations: RuleViolation[]): Partial<RecurringProfileTerms> {
  const out: Partial<RecurringProfileTerms> = {};
  const given = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';
  const amount = (raw: string | undefined, field: string, positive: boolean): Cents | undefined => {
    if (!given(raw)) return undefined;
    const cents = readAmount(raw, field, positive);
    if (typeof cents === 'number') return cents;
    violations.push(cents);
    return undefined;
  };
  const date = (raw: string | undefined, field: string): CalendarDate | undefined => {
    if (!given(raw)) return undefined;
    const d = readBillDate(raw, field);
    if (typeof d === 'string') return d;
    violations.push(d);
    return undefined;
  };
  out.amountCents = amount(body.Amount, 'Amount', true);
  out.preFeeAmountCents = amount(body.PreFeeAmount, 'PreFeeAmount', true);
  out.surchargeCents = amount(body.Surcharge, 'Surcharge', false);
  out.startDate = date(body.StartDate, 'StartDate');
  out.endDate = date(body.EndDate, 'EndDate');
  out.nextBillDate = date(body.NextBillDate, 'NextBillDate');
  if (given(body.BillingFrequency)) {
    const frequency: BillingFrequency | undefined = parseBillingFrequency(body.BillingFrequency);
    if (frequency) out.frequency = frequency;
    else violations.push({ code: Rule.RecurringFrequencyUnknown, field: 'BillingFrequency', message: `'BillingFrequency' must be one of ${FREQUENCIES_TEXT}.` });
  }
  if (given(body.TransactionSourceGroupId)) {
    const text = body.TransactionSourceGroupId.trim();
    if (/^\d{1,2}$/.test(text) && Number(text) in TRANSACTION_SOURCE_GROUPS) out.transactionSourceGroupId = Number(text);
    else violations.push({ code: Rule.InvalidValue, field: 'TransactionSourceGroupId', message: "'TransactionSourceGroupId' must be a TransactionSourceGroupId from 1 to 12." });
  }
  if (given(body.CommissionRateOverride)) {
    const rate = readCommissionRateOverride(body.CommissionRateOverride, 'CommissionRateOverride');
    if (isViolation(rate)) violations.push(rate);
    else out.commissionRateOverride = rate;
  }
  if (given(body.CardProcessingFeeOverride)) {
    // The same rules and codes as on a payment's or fee quote's line.
    const rate = readCardProcessingFeeOverride(body.CardProcessingFeeOverride, 'CardProcessingFeeOverride');
    if (isViolation(rate)) violations.push(rate);
    else out.cardProcessingFeeOverride = rate;
  }
  if (body.PayFee !== undefined) out.payFee = body.PayFee;
  if (given(body.ExternalEventId)) out.externalEventId = body.ExternalEventId;
  if (given(body.ExternalEventGuid)) out.externalEventGuid = body.ExternalEventGuid;
  if (given(body.ExternalEventName)) out.externalEventName = body.ExternalEventName;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as Partial<RecurringProfileTerms>;
}

export function recurringProfileRoutes(app: FastifyInstance, services: Services) {
  app.post<{ Body: CreateWire }>(
    '/recurringProfile',
    {
      config: { idempotent: true },
      schema: {
        tags: ['Recurring billing'],
        operationId: 'createRecurringProfile',
        summary: 'Create a recurring profile: charge a stored token on a schedule.',
        description:
          'The profile bills the token on its schedule through the billing worker (the first charge of a donation is usually made with ' +
          'POST /api/payment and Tokenize: true). 400 (BrokenRule array) when the profile cannot be created.',
        consumes: JSON_CONSUMES,
        body: CreateRecurringProfileRequest,
        response: { 201: RecurringProfileResponse },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const violations: RuleViolation[] = [];
      // The schema asks for a non-empty string; blank text (' ') is as good as missing, and the
      // terms cannot be read without these.
      for (const field of ['Amount', 'StartDate', 'BillingFrequency'] as const) {
        if (body[field].trim() === '') violations.push({ code: Rule.Required, field, message: `'${field}' is required.` });
      }
      const read = readTerms(body, violations);
      if (violations.length > 0) throw new ApiValidationError(violations);
      const row = await services.recurringProfiles.create(request.partner, {
        ...(read as RecurringProfileTerms),
        tokenRef: body.TokenGuid.trim(),
        integrationSourceId: body.IntegrationSource,
      });
      return reply.code(201).send(toWire(row, 'Recurring profile created.'));
    },
  );

  app.put<{ Body: UpdateWire }>(
    '/recurringProfile',
    {
      config: { idempotent: true },
      schema: {
        tags: ['Recurring billing'],
        operationId: 'updateRecurringProfile',
        summary: 'Change a recurring profile.',
        description:
          'Only the fields sent change. A new NextBillDate restarts the schedule from it (and resumes a suspended profile); an EndDate ' +
          'before the next bill date completes the profile. A cancelled profile cannot be changed (400). 404 for an unknown profile ' +
          "or another partner's.",
        consumes: JSON_CONSUMES,
        body: UpdateRecurringProfileRequest,
        response: { 200: RecurringProfileResponse, ...notFound },
      },
    },
    async (request) => {
      const body = request.body;
      const violations: RuleViolation[] = [];
      const read = readTerms(body as Partial<CreateWire>, violations);
      if (violations.length > 0) throw new ApiValidationError(violations);
      const row = await services.recurringProfiles.update(request.partner, {
        ...read,
        profileId: body.RecurringProfileGuid,
        integrationSourceId: body.IntegrationSource,
        useOriginalFees: body.UseOriginalFees,
      });
      return toWire(row, 'Recurring profile updated.');
    },
  );

  app.get<{ Querystring: Static<typeof ReadRecurringProfileQuery> }>(
    '/recurringProfile',
    {
      schema: {
        tags: ['Recurring billing'],
        operationId: 'getRecurringProfile',
        summary: 'Read a recurring profile: its terms, status and next bill date (an extension).',
        description:
          'The spec creates, changes and cancels profiles; this reads one back, for instance one a pay link started (paylinkResult ' +
          "gives its RecurringProfileGuid). 404 for an unknown profile or another partner's.",
        querystring: ReadRecurringProfileQuery,
        response: { 200: RecurringProfileDetails, ...notFound },
      },
    },
    async (request) => toDetailsWire(await services.recurringProfiles.get(request.partner.id, request.query.RecurringProfileGuid)),
  );

  app.delete<{ Querystring: Static<typeof CancelRecurringProfileQuery> }>(
    '/recurringProfile',
    {
      config: { idempotent: true },
      schema: {
        tags: ['Recurring billing'],
        operationId: 'cancelRecurringProfile',
        summary: 'Cancel a recurring profile.',
        description: 'The profile stops billing for good; it and its payments are kept. Cancelling it again is refused (400). 404 for an unknown profile.',
        querystring: CancelRecurringProfileQuery,
        response: { 200: RecurringProfileResponse, ...notFound },
      },
    },
    async (request) => {
      const row = await services.recurringProfiles.cancel(request.partner, request.query.RecurringProfileGuid);
      return toWire(row, 'Recurring profile cancelled.');
    },
  );
}
