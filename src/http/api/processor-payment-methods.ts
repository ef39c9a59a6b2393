import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PAYMENT_METHOD_TYPE_NAMES } from '../../domain/payment-status.ts';
import type { Services } from '../../composition.ts';
import { Guid, Nullable, notFound } from './wire.ts';

const Query = Type.Object({
  processorGuid: Type.Optional(Guid({ description: "The processor; the partner's default when neither this nor mKey is given" })),
  mKey: Type.Optional(Type.String({ maxLength: 500, description: 'The processor by its MKey' })),
});

const PaymentMethodItem = Type.Object(
  {
    PaymentMethodTypeId: Type.Integer({ format: 'int32', minimum: 0, maximum: 10, description: '0 NONE, 1 AMEX, 2 MASTERCARD, 3 VISA, 4 DISCOVER, 5 DINERSCLUB, 6 JCB, 7 ACH, 8 WALLET_A, 9 WALLET_B, 10 GATEWAY_X' }),
    PaymentMethodTypeValue: Nullable(Type.String()),
  },
  { title: 'ProcessorPaymentMethodItem' },
);

export function processorPaymentMethodRoutes(app: FastifyInstance, services: Services) {
  app.get<{ Querystring: { processorGuid?: string; mKey?: string } }>(
    '/processorPaymentMethodTypes',
    {
      schema: {
        tags: ['Processors'],
        operationId: 'listProcessorPaymentMethodTypes',
        summary: "The active payment method types of one of the partner's processors.",
        querystring: Query,
        response: { 200: Type.Array(PaymentMethodItem), ...notFound },
      },
    },
    async (request) => {
      // Issue 30: the processor's active types that its adapter declares it can take.
      const types = await services.processorAccounts.activePaymentMethodTypes(request.partner, {
        processorId: request.query.processorGuid,
        mkey: request.query.mKey,
      });
      return types.map((id) => ({
        PaymentMethodTypeId: id,
        PaymentMethodTypeValue: PAYMENT_METHOD_TYPE_NAMES[id] ?? null,
      }));
    },
  );
}
