import rateLimit from '@fastify/rate-limit';
import { MonotonicRateLimitStore } from './rate-limit-store.ts';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../composition.ts';
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
import { reportRoutes } from './reports.ts';
import { notificationRoutes } from './notifications.ts';
import { sessionRoutes } from './session.ts';
import { errorResponses, rateLimitHeaders } from './wire.ts';
import { idempotencyKeys } from './idempotency.ts';

/** Surface A, the JSON payment API, mounted at /api. */
export async function apiPlugin(app: FastifyInstance, opts: { services: Services; extraRoutes?: (api: FastifyInstance) => void }) {
  const { services } = opts;
  app.setErrorHandler(apiErrorHandler);
  acceptJsonBodies(app);
  requireAccessToken(app, services.sessions);
  documentAuthAndErrors(app);
  await app.register(rateLimit, { global: false, store: MonotonicRateLimitStore });
  // Routes with `config: { idempotent: ... }` take an Idempotency-Key (before the routes are added).
  idempotencyKeys(app, services.idempotency);

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
  reportRoutes(app, services);
  notificationRoutes(app, services);

  opts.extraRoutes?.(app);
}

/**
 * Marks every route that needs an AccessToken as such in the OpenAPI document (and the public
 * ones as needing nothing), and lists the error responses the route can give, unless it describes
 * them itself: 401 where an AccessToken is needed, 413 and 415 where a body can be sent (a DELETE
 * too: a body sent is read), 429 where a rate limit applies, and 400, 500 and 503 everywhere.
 * A rate-limited route's every answer documents the rate limit's headers.
 */
function documentAuthAndErrors(app: FastifyInstance) {
  const { 400: invalid, 401: unauthorized, 413: tooLarge, 415: unsupported, 429: tooMany, 500: internal, 503: unavailable } = errorResponses;
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    const config = route.config as { public?: boolean; rateLimit?: unknown } | undefined;
    const isPublic = config?.public === true;
    schema.security ??= isPublic ? [] : [{ AccessToken: [] }];
    const methods = [route.method].flat();
    const readsBody = methods.some((m) => m !== 'GET' && m !== 'HEAD');
    const responses: Record<string, object & { headers?: object }> = {
      400: invalid,
      ...(isPublic ? {} : { 401: unauthorized }),
      ...(readsBody ? { 413: tooLarge, 415: unsupported } : {}),
      ...(config?.rateLimit ? { 429: tooMany } : {}),
      500: internal,
      503: unavailable,
      ...((schema.response as object | undefined) ?? {}),
    };
    if (config?.rateLimit) {
      for (const [status, response] of Object.entries(responses)) responses[status] = { ...response, headers: { ...response.headers, ...rateLimitHeaders } };
    }
    schema.response = responses;
  });
}
