import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { Rule, type RuleViolation, firstPerField } from '../../domain/rules.ts';
import { sanitizeTheme } from '../../modules/paylinks/theme.ts';
import type { Services } from '../../composition.ts';
import type { PayLinkResult } from '../../modules/paylinks/result-service.ts';
import {
  MAX_PAY_LINK_LINES,
  MAX_THEME_FONTS,
  PAY_LINK_MAX_LENGTH as MAX,
  THEME_CONTROL_CHARACTERS,
  type PayLinkCreateInput,
  type PayLinkLineInput,
  payLinkViolations,
} from '../../modules/paylinks/paylink-rules.ts';
import { wireCardType } from './card-type.ts';
import { PaymentResponse, type PaymentResponseWire, paymentToWire, usePaymentResponseSchema } from './payments.ts';
import { schemaViolations } from './schema-errors.ts';
import { readAmount } from './transaction-lines.ts';
import { EMPTY_GUID, Guid, JSON_CONSUMES, Nullable, notFound } from './wire.ts';
import { ApiValidationError } from './problems.ts';
import { wireViolation } from './wire-names.ts';

/** POST and DELETE /api/paylink, GET /api/paylinkResult. The page itself is src/http/paypage. */

const text = (field: keyof typeof MAX, description?: string) =>
  Type.Optional(Type.String({ maxLength: MAX[field], ...(description ? { description } : {}) }));

const PaymentLine = Type.Object(
  {
    Amount: Type.String({ description: 'Line amount: digits with at most 2 decimals, greater than 0.', examples: ['25.00'] }),
    Type: Type.Integer({ description: "The line's TransactionSourceGroupId, 1-12 (a for-profit partner uses 12).", examples: [1] }),
    Recurring: Type.Optional(
      Type.Integer({
        description:
          '0 (or absent) one-time; 1 Daily, 2 Weekly, 3 Bi-Weekly, 4 Monthly, 5 Bi-Monthly, 6 Quarterly, 7 Semi-Annually, 8 Annually, 9 Semi-Monthly. ' +
          'A link with a recurring line has exactly one line; the page stores the payment method and starts a recurring profile after the first payment.',
      }),
    ),
    ExternalLineId: Type.Optional(Type.String({ maxLength: MAX.externalLineId, description: "Caller's line reference." })),
    PayFee: Type.Optional(Type.Boolean({ description: 'Extension: the payer covers the processing fees of this line (default false).' })),
  },
  { title: 'PayLinkPaymentLine' },
);

const PayLinkRequest = Type.Object(
  {
    ApiKey: Type.String({ minLength: 1, description: "The partner's pay-link API key (issued with its credentials)." }),
    ProcessorGuid: Type.Optional(Guid({ description: 'Processor for the payment; required for a for-profit partner.' })),
    IntegrationSource: Type.Optional(Guid({ description: 'internal use' })),
    IpAddress: text('ipAddress', "The payer's IP for the payment; default: the browser's address."),
    RedirectUrl: Type.String({ maxLength: MAX.redirectUrl, description: 'Absolute http(s) URL the payer is sent to after payment, with responseToken.' }),
    PaymentLines: Type.Optional(Type.Array(PaymentLine, { maxItems: MAX_PAY_LINK_LINES, description: 'Required for a payment link; empty for WorkflowType 3 and 4.' })),
    TranId: text('tranId', 'Partner reference or invoice number; duplicate checking applies as for payments.'),
    ShowTransactionId: Type.Optional(Type.Boolean({ description: 'Shows TranId on the page; without TranId the payer may enter one.' })),
    TransactionIdText: text('transactionIdText', 'Label of the TranId.'),
    PoweredByText: text('poweredByText', 'Branding text; default: the integration source name, else the provider name.'),
    PoweredByUrl: text('poweredByUrl', "Branding link; default: the provider's home address."),
    DonateButtonText: text('donateButtonText', 'Submit button text; default "Submit Payment" (translated).'),
    Language: text('language', 'en (default), fr or es; regional forms (fr-CA) use their language, others English.'),
    DefaultCountryCode: text('defaultCountryCode', 'Country preselected on the form.'),
    Theme: text('theme', 'CSS (up to 5000 characters), sanitized: visual properties only, scoped to the page, no url() or @import.'),
    ThemeFonts: Type.Optional(Type.Array(Type.String(), { maxItems: MAX_THEME_FONTS, description: 'Local font families ("Open Sans:400,700"); nothing is downloaded.' })),
    FirstName: text('firstName'),
    LastName: text('lastName'),
    Email: text('email'),
    Street: text('street'),
    City: text('city'),
    State: text('state'),
    Zip: text('zip', 'US, CA, AU formats by Country (or DefaultCountryCode).'),
    Country: text('country'),
    Phone: text('phone', 'North American or Australian number.'),
    TokenizeCard: Type.Optional(Type.Boolean({ description: 'Store the card or bank account used.' })),
    TokenGuid: Type.Optional(Guid({ description: 'A stored card or bank account the page offers to pay with.' })),
    ExternalCardToken: text('externalCardToken', 'A CcInfoKey the page offers to pay with.'),
    ExternalCheckToken: text('externalCheckToken', 'A CheckInfoKey the page offers to pay with.'),
    ExternalEventId: text('externalEventId'),
    ExternalEventName: text('externalEventName'),
    WorkflowType: Type.Optional(Type.Integer({ description: '1 payment (default), 3 store a card without paying, 4 manage saved cards.' })),
    ExternalConstituentId: text('externalConstituentId', "The partner's customer id; required for WorkflowType 3 and 4."),
    ExternalCustomerId: text('externalCustomerId'),
  },
  { title: 'PayLinkRequest' },
);

const PayLinkResponse = Type.Object({ PayLinkUrl: Nullable(Type.String({ description: 'The page: PUBLIC_BASE_URL/paylink/<PayLinkId>.' })) }, { title: 'PayLinkResponse' });

type PayLinkBody = Static<typeof PayLinkRequest>;

/** paylinkResult: the payment response, and the recurring profile a recurring line started. */
const PayLinkResultResponse = Type.Object(
  {
    ...PaymentResponse.properties,
    RecurringProfileGuid: Nullable(
      Type.String({
        format: 'uuid',
        description:
          'Extension: the recurring profile the link started after this payment (a recurring line), to read, change or cancel it ' +
          'with /api/recurringProfile; null otherwise (or if the profile could not be created: the payment stands).',
      }),
    ),
  },
  { title: 'PayLinkResultResponse' },
);

/** The payment response of a redeemed result; a stored card (WorkflowType 3/4) is a response without a payment. */
function resultToWire(result: PayLinkResult): Static<typeof PayLinkResultResponse> {
  if (result.kind === 'payment') return { ...paymentToWire(result.record), RecurringProfileGuid: result.recurringProfileId };
  return { ...storedCardToWire(result), RecurringProfileGuid: null };
}

/** A stored card (WorkflowType 3/4) as a payment response without a payment. */
function storedCardToWire(result: Extract<PayLinkResult, { kind: 'token' }>): PaymentResponseWire {
  const t = result.token;
  return {
    Successful: true,
    Message: 'Card stored',
    ProcessorMessage: null,
    AuthCode: null,
    TransactionId: null,
    PaymentGuid: EMPTY_GUID,
    PaymentId: 0,
    ResponseCode: '0',
    PaymentResult: 3,
    ProcessStatus: 1,
    TotalAmount: 0,
    TotalSurcharge: null,
    AVSStreetStatus: null,
    AVSZipStatus: null,
    AVSResponse: null,
    CVVResponse: null,
    ExternalCardToken: t.kind === 'card' ? t.gatewayKey : null,
    ExternalCheckToken: t.kind === 'bank' ? t.gatewayKey : null,
    ExternalCustomerId: t.customerKey,
    ExternalConstituentId: t.externalConstituentId,
    TokenGuid: t.id,
    TransactionFees: [],
    OrganizationGuid: EMPTY_GUID,
    ProcessorGuid: null,
    FirstName: t.firstName,
    LastName: t.lastName,
    EmailAddress: null,
    PostalCode: t.zip,
    AddressLine1: t.street,
    City: null,
    ProvinceCode: null,
    CountryCode: null,
    CardNum: t.kind === 'card' ? t.last4 : null,
    CardType: t.kind === 'card' ? wireCardType(t.cardType) : null,
    ExpMonth: t.expMonth,
    ExpYear: t.expYear,
    Currency: null,
    PaymentMethodTypeId: t.paymentMethodTypeId,
    IsSurchargeEligible: null,
    CheckAccountNum: t.kind === 'bank' ? t.last4 : null,
    TranId: null,
    EpfSessionId: null,
    PaymentDate: result.createdAt.toISOString(),
  };
}

export function payLinkRoutes(app: FastifyInstance, services: Services) {
  usePaymentResponseSchema(app);

  app.post<{ Body: PayLinkBody }>(
    '/paylink',
    {
      attachValidation: true,
      config: { idempotent: true },
      schema: {
        tags: ['Pay links'],
        operationId: 'createPayLink',
        summary: 'Create a pay link: a unique URL that opens the hosted payment page.',
        description: 'Needs the AccessToken header and the body ApiKey (the pay-link key). A wrong ApiKey is a 400 BrokenRule (ErrorCode 6000).',
        consumes: JSON_CONSUMES,
        body: PayLinkRequest,
        response: { 200: PayLinkResponse },
      },
    },
    async (request, reply) => {
      // With attachValidation the handler runs on a body that failed the schema too: every field
      // is narrowed to the type the rules expect (a wrong type is left out here and reported by
      // the schema), so no value of another JSON type reaches code that assumes a string.
      const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
      const str = (name: keyof PayLinkBody) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
      const bool = (name: keyof PayLinkBody) => (typeof body[name] === 'boolean' ? (body[name] as boolean) : undefined);
      const num = (name: keyof PayLinkBody) => (typeof body[name] === 'number' ? (body[name] as number) : undefined);
      // The pay-link key first: without it nothing else is judged.
      const apiKey = str('ApiKey');
      if (apiKey !== undefined && apiKey !== '' && !(await services.partners.verifyApiKey(request.partner.id, apiKey))) {
        throw new ApiValidationError([{ code: Rule.PayLinkApiKeyInvalid, field: 'ApiKey', message: "'ApiKey' is not the partner's pay-link API key." }]);
      }
      const own: RuleViolation[] = [];
      const lines: PayLinkLineInput[] = (Array.isArray(body.PaymentLines) ? (body.PaymentLines as unknown[]) : []).map((raw, i) => {
        const line = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
        let amountCents: number | undefined;
        if (typeof line.Amount === 'string') {
          const read = readAmount(line.Amount, `PaymentLines[${i}].Amount`, true);
          if (typeof read === 'number') amountCents = read;
          else own.push(read);
        }
        return {
          amountCents,
          type: typeof line.Type === 'number' ? line.Type : undefined,
          recurring: typeof line.Recurring === 'number' ? line.Recurring : undefined,
          payFee: typeof line.PayFee === 'boolean' ? line.PayFee : undefined,
          externalLineId: typeof line.ExternalLineId === 'string' ? line.ExternalLineId : undefined,
        };
      });
      // The theme's type and length are checked before it is parsed: sanitizing is the costly step.
      const theme = str('Theme');
      if (theme !== undefined && theme.length > MAX.theme) own.push({ code: Rule.MaxLength, field: 'Theme', message: `'Theme' must be at most ${MAX.theme} characters.` });
      else if (theme !== undefined && THEME_CONTROL_CHARACTERS.test(theme)) {
        own.push({ code: Rule.InvalidFormat, field: 'Theme', message: "'Theme' must not contain control characters (other than tab and line breaks)." });
      }
      const input: PayLinkCreateInput = {
        processorGuid: str('ProcessorGuid'),
        integrationSource: str('IntegrationSource'),
        ipAddress: str('IpAddress'),
        redirectUrl: str('RedirectUrl'),
        lines,
        tranId: str('TranId'),
        showTransactionId: bool('ShowTransactionId'),
        transactionIdText: str('TransactionIdText'),
        poweredByText: str('PoweredByText'),
        poweredByUrl: str('PoweredByUrl'),
        donateButtonText: str('DonateButtonText'),
        language: str('Language'),
        defaultCountryCode: str('DefaultCountryCode'),
        themeFonts: Array.isArray(body.ThemeFonts) ? (body.ThemeFonts as unknown[]).filter((f): f is string => typeof f === 'string') : undefined,
        firstName: str('FirstName'),
        lastName: str('LastName'),
        email: str('Email'),
        street: str('Street'),
        city: str('City'),
        state: str('State'),
        zip: str('Zip'),
        country: str('Country'),
        phone: str('Phone'),
        tokenizeCard: bool('TokenizeCard'),
        tokenGuid: str('TokenGuid'),
        externalCardToken: str('ExternalCardToken'),
        externalCheckToken: str('ExternalCheckToken'),
        externalEventId: str('ExternalEventId'),
        externalEventName: str('ExternalEventName'),
        workflowType: num('WorkflowType'),
        externalConstituentId: str('ExternalConstituentId'),
        externalCustomerId: str('ExternalCustomerId'),
      };
      const fromSchema = request.validationError ? schemaViolations(request.validationError.validation, 'body') : [];
      if (fromSchema.length > 0 || own.length > 0) {
        // Everything at once: the schema's, the amounts' and the theme's, then the link rules (one per field).
        throw new ApiValidationError(firstPerField([...fromSchema, ...own, ...(payLinkViolations(input).map((v) => wireViolation(v)) as RuleViolation[])]));
      }
      if (theme !== undefined) input.theme = sanitizeTheme(theme);
      const link = await services.payLinks.create(request.partner, input);
      return reply.code(200).send({ PayLinkUrl: link.url });
    },
  );

  app.delete<{ Querystring: { PayLinkId: string; IntegrationSource?: string } }>(
    '/paylink',
    {
      config: { idempotent: true },
      schema: {
        tags: ['Pay links'],
        operationId: 'cancelPayLink',
        summary: 'Cancel a pay link; its page then answers 410. Cancelling again answers the same.',
        querystring: Type.Object({
          PayLinkId: Type.String({ minLength: 1, description: 'The last segment of the PayLinkUrl.' }),
          IntegrationSource: Type.Optional(Type.String({ description: 'internal use (ignored)' })),
        }),
        response: { 200: PayLinkResponse, ...notFound },
      },
    },
    async (request, reply) => reply.code(200).send({ PayLinkUrl: await services.payLinks.cancel(request.partner, request.query.PayLinkId) }),
  );

  app.get<{ Querystring: { ResponseToken: string } }>(
    '/paylinkResult',
    {
      schema: {
        tags: ['Pay links'],
        operationId: 'getPayLinkResult',
        summary: "Confirm a pay link outcome from the redirect's responseToken (single use, 30 minutes, the link's partner only).",
        description:
          'Returns the payment response of the payment the page made. For WorkflowType 3 and 4 (a card stored, nothing paid) the response carries the ' +
          'token (TokenGuid, ExternalCardToken, card fields) with PaymentGuid 00000000-0000-0000-0000-000000000000 and TotalAmount 0.',
        querystring: Type.Object({ ResponseToken: Type.String({ minLength: 1, maxLength: 200, description: 'The responseToken of the redirect.' }) }),
        response: { 200: PayLinkResultResponse, ...notFound },
      },
    },
    async (request, reply) => reply.code(200).send(resultToWire(await services.payLinkResults.redeem(request.partner, request.query.ResponseToken))),
  );
}

