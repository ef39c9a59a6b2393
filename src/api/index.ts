import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/index.ts';
import { requireAccessToken } from './auth.ts';
import { charitySearchRoutes } from './charity-search.ts';
import { apiErrorHandler } from './error-handler.ts';
import { feeRoutes } from './fees.ts';
import { nextBillDateRoutes } from './next-bill-date.ts';
import { recurringProfileRoutes } from './recurring-profiles.ts';
import { acceptJsonBodies } from './json-bodies.ts';
import { paymentRoutes } from './payments.ts';
import { payLinkRoutes } from './paylinks.ts';
import { processorPaymentMethodRoutes } from './processor-payment-methods.ts';
import { refundVoidRoutes } from './refund-void.ts';
import { sessionRoutes } from './session.ts';
import { authenticatedErrors } from './wire.ts';

/** Surface A, the JSON payment API, mounted at /api. */
export async function apiPlugin(app: FastifyInstance, opts: { services: Services; extraRoutes?: (api: FastifyInstance) => void }) {
  const { services } = opts;
  app.setErrorHandler(apiErrorHandler);
  acceptJsonBodies(app);
  requireAccessToken(app, services.sessions);
  documentAuthAndErrors(app);
  await app.register(rateLimit, { global: false });

  // One line per resource: each file adds its routes.
  sessionRoutes(app, services, services.config);
  processorPaymentMethodRoutes(app, services);
  paymentRoutes(app, services);
  payLinkRoutes(app, services);
  refundVoidRoutes(app, services);
  feeRoutes(app, services);
  recurringProfileRoutes(app, services);
  nextBillDateRoutes(app);
  charitySearchRoutes(app, services, services.config);

  opts.extraRoutes?.(app);
}

/**
 * Marks every route that needs an AccessToken as such in the OpenAPI document, and lists the
 * error responses every route can give (unless a route describes them itself).
 */
function documentAuthAndErrors(app: FastifyInstance) {
  const { 401: _unauthorized, ...publicErrors } = authenticatedErrors;
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    const isPublic = (route.config as { public?: boolean } | undefined)?.public === true;
    if (!isPublic) schema.security ??= [{ AccessToken: [] }];
    schema.response = { ...(isPublic ? publicErrors : authenticatedErrors), ...((schema.response as object | undefined) ?? {}) };
  });
}
