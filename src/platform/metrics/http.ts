import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DURATION_BUCKETS, type Metrics } from './metrics.ts';

/** The route label of a request no route matched (a 404, a 405, a URL the router could not read). */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

type Observe = (seconds: number) => void;

/**
 * Every answered request, by route template (`/api/payment/:paymentGuid`, never the URL asked
 * for: a GUID, a pay link id or an e-mail address in a URL must not become a label), method and
 * status class: `http_server_request_duration_seconds` (its `_count` is the number of requests).
 * The label children are kept by key: prom-client would otherwise hash the labels of every request.
 */
export function observeHttp(app: FastifyInstance, metrics: Metrics): void {
  const duration = metrics.histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Time from the request to the end of its answer, by route template, method and status class (2xx ... 5xx).',
    labelNames: ['route', 'method', 'status_class'] as const,
    buckets: DURATION_BUCKETS,
  });
  const children = new Map<string, Observe>();
  const child = (route: string, method: string, statusClass: string): Observe => {
    const key = `${method} ${statusClass} ${route}`;
    let observe = children.get(key);
    if (!observe) {
      const labelled = duration.labels({ route, method, status_class: statusClass });
      observe = (seconds) => labelled.observe(seconds);
      children.set(key, observe);
    }
    return observe;
  };
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const method = METHODS.has(request.method) ? request.method : 'OTHER';
    child(route, method, `${Math.floor(reply.statusCode / 100)}xx`)(reply.elapsedTime / 1000);
    done();
  });
}
