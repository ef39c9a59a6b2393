import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { Rule, type RuleViolation, firstPerField } from '../../domain/rules.ts';
import type { Services } from '../../composition.ts';
import { type AdjustmentInput, type AdjustmentOutcome, EXTERNAL_ID_MAX_LENGTH, REASON_MAX_LENGTH } from '../../modules/adjustments/refund-void-service.ts';
import { schemaViolations } from './schema-errors.ts';
import { Guid, JSON_CONSUMES, Nullable, PaymentResultWire, ProcessStatusWire, notFound } from './wire.ts';
import { ApiValidationError } from './problems.ts';
import { wireViolation } from './wire-names.ts';

/** POST /api/refund and POST /api/void: the spec's refund and void request and response. */

const RefundVoidRequest = Type.Object(
  {
    ProcessorGuid: Type.Optional(Guid({ description: "Optional for a non-profit partner; required for a for-profit partner. Must be the payment's processor." })),
    CharityId: Type.Optional(Guid({ description: 'Accepted for compatibility; the payment is found by PaymentGuid or PaymentExternalId.' })),
    OrganizationGuid: Type.Optional(Guid({ description: 'internal use; not used to find the payment.' })),
    IntegrationSource: Type.Optional(Guid({ description: 'internal use; not used to find the payment.' })),
    PaymentGuid: Type.Optional(Guid({ description: 'The payment to act on; optional when PaymentExternalId is sent. When both are sent they must name the same payment.' })),
    PaymentExternalId: Type.Optional(
      Type.String({ maxLength: EXTERNAL_ID_MAX_LENGTH, description: "The payment's gateway TransactionId (from the payment response); optional when PaymentGuid is sent." }),
    ),
    Reason: Type.String({ maxLength: REASON_MAX_LENGTH, description: 'Why the payment is refunded or voided (required); kept with the record.' }),
    Amount: Type.Optional(
      Type.String({
        description:
          "Not needed: a refund or void is always for the whole payment. When sent, it must be the payment's TotalAmount; any other amount is refused (400, ErrorCode 1006), never taken as a partial refund.",
        examples: ['108.44'],
      }),
    ),
  },
  { title: 'RefundVoidRequest' },
);

const RefundVoidResponse = Type.Object(
  {
    Successful: Type.Boolean({ description: 'true when the refund or void went through; false when it was refused or declined (Message says why; nothing changed).' }),
    Message: Nullable(Type.String()),
    ProcessorMessage: Nullable(Type.String({ description: 'What the processor said; null when the request did not reach it.' })),
    TransactionId: Nullable(Type.String({ description: "The processor's id of this refund or void; null when the request did not reach it." })),
    OriginalTransactionId: Nullable(Type.String({ description: "The payment's TransactionId (its PaymentExternalId)." })),
    PaymentGuid: Type.String({ format: 'uuid' }),
    PaymentId: Type.Integer({ format: 'int32' }),
    ResponseCode: Nullable(Type.String({ description: '0 approved; -100 not processed (refused by the rules); 99 processor error; otherwise the processor’s decline code.' })),
    PaymentResult: PaymentResultWire("The payment's result after the request: 3 Successful, 4 Failed, 5 Refunded, 6 Cancelled."),
    ProcessStatus: ProcessStatusWire("The payment's status after the request: 2 Authorized, 4 Settled, 7 AwaitingRefund (ACH refund until the next settlement), 8 Refunded, 9 Cancelled."),
  },
  { $id: 'RefundVoidResponse', title: 'RefundVoidResponse' },
);

type RefundVoidWire = Static<typeof RefundVoidRequest>;

export function adjustmentToWire(o: AdjustmentOutcome): Static<typeof RefundVoidResponse> {
  return {
    Successful: o.successful,
    Message: o.message,
    ProcessorMessage: o.processorMessage,
    TransactionId: o.transactionId,
    OriginalTransactionId: o.originalTransactionId,
    PaymentGuid: o.paymentGuid,
    PaymentId: o.paymentId,
    ResponseCode: o.responseCode,
    PaymentResult: o.paymentResult,
    ProcessStatus: o.processStatus,
  };
}

/**
 * One violation per field: "neither payment reference" first (an empty PaymentGuid counts as not
 * sent, not as a malformed GUID), then the schema's, then the service's own rules.
 */
function allViolations(request: FastifyRequest, rules: RuleViolation[]): RuleViolation[] {
  const fromSchema = request.validationError ? schemaViolations(request.validationError.validation, 'body') : [];
  const missingReference = rules.filter((v) => v.code === Rule.PaymentReferenceRequired);
  return firstPerField([...missingReference, ...fromSchema, ...rules]);
}

const routeSchema = (operationId: string, summary: string, description: string) => ({
  tags: ['Refunds and voids'],
  operationId,
  summary,
  description,
  consumes: JSON_CONSUMES,
  body: RefundVoidRequest,
  response: {
    200: { ...Type.Ref('RefundVoidResponse'), description: 'Every request that found its payment, whether it went through or not (Successful says which).' },
    ...notFound,
  },
});

export function refundVoidRoutes(app: FastifyInstance, services: Services) {
  if (!app.getSchema('RefundVoidResponse')) app.addSchema(RefundVoidResponse);

  const read = (request: FastifyRequest): AdjustmentInput => {
    const raw = request.body;
    const body = (raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Partial<RefundVoidWire>;
    // A field of the wrong JSON type is already a schema violation; the rules see it as absent.
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const input: AdjustmentInput = {
      paymentGuid: text(body.PaymentGuid),
      paymentExternalId: text(body.PaymentExternalId),
      processorGuid: text(body.ProcessorGuid),
      reason: text(body.Reason),
      charityId: text(body.CharityId),
      organizationGuid: text(body.OrganizationGuid),
      integrationSource: text(body.IntegrationSource),
      amount: text(body.Amount),
    };
    const violations = allViolations(request, services.refundsVoids.validate(request.partner, input).map((v) => wireViolation(v)));
    if (violations.length > 0) throw new ApiValidationError(violations);
    return input;
  };

  app.post(
    '/void',
    {
      attachValidation: true,
      config: { idempotent: true },
      schema: routeSchema(
        'voidPayment',
        'Void (cancel) an approved payment that has not settled.',
        'The authorization is released and the payment never settles (PaymentResult 6, ProcessStatus 9). A settled payment cannot be voided: refund it. Found by PaymentGuid or PaymentExternalId; another partner’s payment is 404.',
      ),
    },
    async (request, reply) => {
      const outcome = await services.refundsVoids.voidPayment(request.partner, read(request), { source: 'api', requestId: request.id });
      return reply.code(200).send(adjustmentToWire(outcome));
    },
  );

  app.post(
    '/refund',
    {
      attachValidation: true,
      config: { idempotent: true },
      schema: routeSchema(
        'refundPayment',
        'Refund a settled payment in full.',
        'Card refunds complete at once (PaymentResult 5, ProcessStatus 8); ACH refunds wait for the next settlement run (ProcessStatus 7, then 8). A payment that has not settled cannot be refunded: void it. Found by PaymentGuid or PaymentExternalId; another partner’s payment is 404.',
      ),
    },
    async (request, reply) => {
      const outcome = await services.refundsVoids.refund(request.partner, read(request), { source: 'api', requestId: request.id });
      return reply.code(200).send(adjustmentToWire(outcome));
    },
  );
}
