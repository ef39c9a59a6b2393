import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Ajv } from 'ajv';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { apiPlugin } from './http/api/index.ts';
import { healthRoutes } from './http/api/health.ts';
import { registerOpenApi } from './http/api/openapi.ts';
import { clientErrorResponse, sendBrokenRules, sendProblem } from './http/api/problems.ts';
import { Rule } from './domain/rules.ts';
import { BrokenRule, ProblemDetails } from './http/api/wire.ts';
import { GATEWAY_PATH, gatewayPlugin } from './http/gateway/plugin.ts';
import { httpsServerOptions } from './http/gateway/transport.ts';
import { lazyChildLogger } from './platform/lazy-logger.ts';
import { payPageBadRequest, payPagePlugin } from './http/paypage/plugin.ts';
import { RouteTable } from './http/route-table.ts';
import { DatabaseAvailability } from './platform/database/availability.ts';
// Metrics, traces and readable request lines (issue 31).
import { RequestLogLines } from './http/request-log.ts';
import { observeHttp } from './platform/metrics/http.ts';
import { tracing } from './platform/tracing.ts';


function strictGuidFormat(ajv: Ajv): void {
  ajv.addFormat('uuid', GUID);
}
import type { Services } from './composition.ts';
import { GUID } from './platform/ids.ts';

export interface AppOptions {
  services: Services;
  /** Extra routes inside surface A's scope (tests and benchmarks add probes this way). */
  extraApiRoutes?: (api: FastifyInstance) => void;
}

/** A request id from the caller's X-Request-Id when it is sane, otherwise a new one. */
function requestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,64}$/.test(given) ? given : randomUUID();
}

/**
 * TRUST_PROXY for Fastify. A hop count becomes a function of the hop: Fastify 5 now reads a
 * number as "trust no one" (it cannot check the peer's address), which silently turned `on` into
 * off: every client behind the proxy shared the proxy's address and its rate limits, and the
 * gateway refused every request in production. A hop count believes whoever connects, so it fits
 * a service reachable only through its proxies (README); addresses are checked as given.
 */
export function fastifyTrustProxy(trust: boolean | number | string): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
}

/** Builds the whole service: surface A, surface B, the pay page, docs and health. */
/** The gateway's clients read SOAP faults or plain text, never problem details (docs/errors.md). */
function isGatewayUrl(url: string): boolean {
  const path = url.toLowerCase().split('?')[0]!;
  return path === GATEWAY_PATH || path.startsWith(`${GATEWAY_PATH}/`);
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { services } = options;
  const { config } = services;
  const logger = services.log;
  // With tracing on, each request's lines carry its trace id (the span active when it arrives).
  const traceId = tracing()?.traceId;
  const app = Fastify({
    loggerInstance: logger,
    // Request loggers become real pino children only when they write a line (see lazy-logger.ts).
    childLoggerFactory: traceId
      ? (parent, bindings, childOptions) => lazyChildLogger(parent, { ...bindings, traceId: traceId() }, childOptions)
      : (parent, bindings, childOptions) => lazyChildLogger(parent, bindings, childOptions),
    logController: new RequestLogLines(),
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    forceCloseConnections: 'idle',
    // Fastify's default is no limit: a body that stalls held its connection (and memory) for as
    // long as the client liked; 19,500 of them from one client neared the open-file limit (a
    // robustness audit). Node checks the limits every connectionsCheckingInterval, and only as
    // given when the server is made (set afterwards, as Fastify sets requestTimeout, it did not
    // apply), with the headers' limit no longer than the whole request's.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      // Every 5 s: at 30 s, the 408 came up to 30 s after the limit the README states (an HTTP audit).
      connectionsCheckingInterval: Math.min(5_000, Math.ceil(config.requestTimeoutMs / 2)),
    },
    return503OnClosing: true,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
    clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
      // A reset connection has nobody to answer.
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      logger.debug({ errorCode: error.code }, 'client error');
      // A request of this connection, read whole, is still being answered, and the error is a
      // later request's (malformed, pipelined behind it): an error written now would be read as
      // that request's answer (an HTTP audit saw a payment charged and its client told only "400
      // not valid HTTP"). Its own answer goes out, then the connection closes. An error of the
      // request being read (its body malformed or too slow) is answered as before.
      const answering = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (answering && !answering.writableFinished && answering.req.complete) {
        answering.shouldKeepAlive = false;
        answering.once('close', () => socket.destroy());
        return;
      }
      if (socket.writable) socket.write(clientErrorResponse(error.code));
      socket.destroy(error);
    },
    // A URL the router cannot decode (`/api/%`, or `/%`, which is what `/api/../%` becomes once
    // a client resolves the dots): answered with the pay page's 400 page for a pay link URL, in
    // plain text on the gateway, and otherwise as every 400 of the service is (docs/errors.md),
    // without echoing it.
    frameworkErrors: (_error, request, reply) => {
      if (/^\/paylink(\/|$)/i.test(request.url)) return payPageBadRequest(reply as FastifyReply, config.frameAncestors);
      if (isGatewayUrl(request.url)) return (reply as FastifyReply).code(400).type('text/plain; charset=utf-8').send('The request URL is not valid.');
      return sendBrokenRules(reply, [{ code: Rule.InvalidRequest, message: 'The request URL is not valid.' }]);
    },
    ajv: {
      customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: false },
      // A GUID is 8-4-4-4-12 hex digits: ajv-formats' uuid also takes `urn:uuid:...`, which
      // PostgreSQL's uuid type does not. (onCreate runs after ajv-formats is added.)
      onCreate: strictGuidFormat,
    },
    // TLS_CERT_FILE + TLS_KEY_FILE: the service terminates TLS itself.
    ...httpsServerOptions(config),
  }) as unknown as FastifyInstance;

  if (services.metrics) observeHttp(app, services.metrics);
  const availability = new DatabaseAvailability(app.log, services.clock);
  app.decorate('databaseAvailability', availability);
  services.store.onConnect(() => availability.reached());
  const routes = new RouteTable();
  routes.track(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    // No cache may store an answer of the API (tokens, payer data; AccessToken is not a header
    // shared caches treat as Authorization), its errors and 404s included, nor a gateway
    // operation's (session ids, card tokens); the WSDL and the operations page, GETs, may be cached.
    if (/^\/api(\/|\?|$)/i.test(request.url) || (isGatewayUrl(request.url) && request.method !== 'GET' && request.method !== 'HEAD')) {
      reply.header('Cache-Control', 'no-store');
    }
    // Transfer codings other than chunked (`gzip, chunked`) pass Node's parser undecoded: the body
    // was read as if plain ("not UTF-8"). RFC 9112 6.1: 501 for a coding the server does not know.
    const transfer = request.headers['transfer-encoding']?.trim().toLowerCase();
    if (transfer && transfer !== 'chunked') {
      const message = 'No transfer coding but chunked is supported.';
      reply.header('Connection', 'close');
      return isGatewayUrl(request.url) ? reply.code(501).type('text/plain; charset=utf-8').send(message) : sendProblem(reply, 501, message);
    }
    // No content coding is decoded here: a gzip body was read as if plain (RFC 9110 8.4: 415).
    // A request without a body (a GET) has nothing coded, whatever its headers say.
    const coding = request.headers['content-encoding']?.trim().toLowerCase();
    const hasBody = transfer === 'chunked' || Number(request.headers['content-length'] ?? 0) > 0;
    if (coding && coding !== 'identity' && hasBody) {
      const message = 'No Content-Encoding is supported: send the body uncompressed.';
      reply.header('Accept-Encoding', 'identity');
      return isGatewayUrl(request.url) ? reply.code(415).type('text/plain; charset=utf-8').send(message) : sendProblem(reply, 415, message);
    }
  });
  // While the server stops, each answer closes its connection: a connection kept alive after
  // answering a request in flight at SIGTERM held the stop for the whole SHUTDOWN_GRACE (Node
  // closes only the connections idle when the stop begins).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    // An answer given before the request's body was read (a 401 from the headers alone, a 413 or
    // 415) closes its connection: the rest of that body, or its failing later, was otherwise
    // answered again on the same connection (an unsolicited 408 or 400 after the 401, which a
    // client reusing the connection reads as its next request's answer: an HTTP audit).
    // (`complete` is false only on a real connection: injected requests have none.)
    if (closing || request.raw.complete === false) reply.header('Connection', 'close');
  });
  app.addSchema(BrokenRule);
  app.addSchema(ProblemDetails);

  await registerOpenApi(app, config.publicBaseUrl);
  healthRoutes(app, services.health, availability);
  await app.register(apiPlugin, { prefix: '/api', services, extraRoutes: options.extraApiRoutes });
  await app.register(payPagePlugin, { prefix: '/paylink', services });
  await app.register(gatewayPlugin, { services });

  app.setNotFoundHandler((request, reply) => {
    const allowed = routes.allowedMethods(request.url);
    const gateway = isGatewayUrl(request.url);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      const message = `${request.method} is not allowed here; use ${allowed.join(' or ')}.`;
      return gateway ? reply.code(405).type('text/plain; charset=utf-8').send(message) : sendProblem(reply, 405, message);
    }
    return gateway ? reply.code(404).type('text/plain; charset=utf-8').send('No such resource.') : sendProblem(reply, 404, 'No such resource.');
  });
  return app;
}
