import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/database.ts';
import { sendProblem } from './problems.ts';

/** Liveness (the process answers) and readiness (the database answers). */
export function healthRoutes(app: FastifyInstance, store: Store) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await store.ping();
      return { status: 'ready', database: store.kind };
    } catch {
      return sendProblem(reply, 503, 'The database is not reachable.');
    }
  });
}
