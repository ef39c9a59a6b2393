import type { FastifyInstance } from 'fastify';
import type { HealthService } from '../../modules/operations/health-service.ts';
import { sendProblem } from './problems.ts';

/**
 * How long readiness waits for the database: a frozen database (a hung host, a network cut)
 * would otherwise hold /readyz for as long as it lasts, and a load balancer never take the
 * instance out.
 */
export const READY_TIMEOUT_MS = 2_000;

/** Liveness (the process answers) and readiness (the database answers, in time). */
export function healthRoutes(app: FastifyInstance, health: HealthService, availability: { reached(): void }) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer in time')), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([health.ping(), late]);
      availability.reached();
      return { status: 'ready', database: health.database };
    } catch {
      return sendProblem(reply, 503, 'The database is not reachable.');
    } finally {
      clearTimeout(timer);
    }
  });
}
