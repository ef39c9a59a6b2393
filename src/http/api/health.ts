import type { FastifyInstance } from 'fastify';
import type { Store } from '../../platform/database/database.ts';
import type { DatabaseAvailability } from '../../platform/database/availability.ts';
import { sendProblem } from './problems.ts';

/**
 * How long readiness waits for the database: a frozen database (a hung host, a network cut)
 * held /readyz for as long as it lasted, so a load balancer never took the instance out
 * (an outage audit).
 */
export const READY_TIMEOUT_MS = 2_000;

/** Liveness (the process answers) and readiness (the database answers, in time). */
export function healthRoutes(app: FastifyInstance, store: Store, availability: DatabaseAvailability) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer in time')), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([store.ping(), late]);
      availability.reached();
      return { status: 'ready', database: store.kind };
    } catch {
      return sendProblem(reply, 503, 'The database is not reachable.');
    } finally {
      clearTimeout(timer);
    }
  });
}
