import type { Store } from '../database/database.ts';
import type { Metrics } from './metrics.ts';

/** How long a scrape waits for the database to answer `SELECT 1` before it counts as down. */
const PING_LIMIT_MS = 2_000;

/**
 * The database as this process sees it: whether it answers (a `SELECT 1` at each scrape, so that
 * an outage shows without traffic), the pool's connections and the calls waiting for one, and the
 * statements that failed, by kind.
 */
export function observeDatabase(store: Store, metrics: Metrics): void {
  const pool = (name: string, help: string, read: (state: ReturnType<Store['poolState']>) => number) =>
    metrics.gauge({
      name,
      help,
      collect() {
        this.set(read(store.poolState()));
      },
    });
  pool('db_pool_connections_max', 'The most connections the pool opens (DATABASE_POOL_SIZE; PGlite: 1).', (s) => s.max);
  pool('db_pool_connections', 'Connections open now, idle or in use (PGlite: its one connection).', (s) => s.total);
  pool('db_pool_connections_idle', 'Open connections no call is using.', (s) => s.idle);
  pool('db_pool_waiting', 'Calls waiting for a connection (PGlite: calls queued behind the one running).', (s) => s.waiting);
  // After the pool's gauges: its ping would otherwise show as a busy connection.
  metrics.gauge({
    name: 'db_up',
    help: `1 when the database answered SELECT 1 within ${PING_LIMIT_MS / 1000} s at this scrape, 0 when it did not.`,
    async collect() {
      this.set((await answers(store)) ? 1 : 0);
    },
  });
  const errors = metrics.counter({
    name: 'db_query_errors_total',
    help: 'Statements that failed, by kind: unavailable (the database could not be reached or the connection ended), invalid_input, constraint (SQLSTATE class 23), other.',
    labelNames: ['kind'] as const,
  });
  for (const kind of ['unavailable', 'invalid_input', 'constraint', 'other'] as const) errors.inc({ kind }, 0);
  store.onQueryError((kind) => errors.inc({ kind }));
}

async function answers(store: Store): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_LIMIT_MS);
  });
  try {
    return await Promise.race([store.ping().then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}
