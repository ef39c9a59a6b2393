/**
 * npm run bench -- charities        (PostgreSQL only: DATABASE_URL must be set)
 *
 * The charity directory at national size, on a throw-away database of its own
 * (payments_bench_charities, dropped at the end):
 *   1. a SYNTHETIC IRS EO BMF file of 1.9 million rows (CHARITY_BENCH_ROWS), made from the real
 *      shipped rows with rewritten EINs (bench/lib/charities-synthetic.ts), in a temporary folder;
 *   2. its import through the importer itself: rows/s (target >= 50,000) and the importer's memory
 *      (resident size sampled through the import: it must not grow with the file);
 *   3. a re-import of its first 200,000 rows (the monthly refresh case: rows unchanged);
 *   4. GET /api/CharitySearch under 16 concurrent clients, the server holding 2 x cores connections:
 *      name searches (target p95 <= 20 ms) and EIN lookups (target p95 <= 5 ms), each for --seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CharityImportRepository } from '../src/modules/charities/import-repository.ts';
import { CharityImportService } from '../src/modules/charities/import-service.ts';
import { openPostgres } from '../src/platform/database/database.ts';
import { migrate } from '../src/platform/database/migrate.ts';
import { withDatabase } from '../test/helpers/database-url.ts';
import { closedLoop } from './lib/charities-load.ts';
import { nameQueries, einQueries } from './lib/charities-queries.ts';
import { writeSyntheticFile } from './lib/charities-synthetic.ts';
import { benchServerUrl } from './lib/database.ts';
import { startServer } from './lib/harness.ts';

const DATABASE = 'payments_bench_charities';
const CLIENTS = 16;
/**
 * The server's connections to PostgreSQL: twice the cores, PostgreSQL's own sizing rule when the
 * database shares the machine (README, "Run on PostgreSQL"); these are this machine's cores, right
 * for the local server the benchmark uses unless BENCH_DATABASE_URL or DATABASE_URL names another. The 16 clients' requests queue in the
 * server for a connection. One connection per client on this 2-core machine made 16 backends
 * contend for 2 cores with the server and the clients: name search p95 22.5 ms at 1,400 requests/s,
 * against 20 ms with the default pool of 10 and 16-17 ms at 1,440-1,540 requests/s with 4.
 */
const POOL = 2 * availableParallelism();

export async function run(options: { seconds: number }) {
  // Always PostgreSQL: DATABASE_URL's server, else the local one (the database is its own, dropped after).
  const serverUrl = benchServerUrl();
  const rows = Number(process.env.CHARITY_BENCH_ROWS ?? 1_900_000);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const benchUrl = withDatabase(serverUrl, DATABASE);
  const dir = mkdtempSync(join(tmpdir(), 'payments-bench-charities-'));
  try {
    const file = join(dir, `SYNTHETIC-irs-eo-bmf-${rows}.csv`);
    process.stdout.write(`generating ${rows} synthetic rows in ${file}\n`);
    const { bytes } = await writeSyntheticFile(file, rows);

    const store = openPostgres(benchUrl, 4);
    await migrate(store);
    const importer = new CharityImportService({ repository: new CharityImportRepository(store, benchUrl) });
    const rss: number[] = [];
    let nextSample = 0;
    process.stdout.write(`importing ${(bytes / 1e6).toFixed(0)} MB\n`);
    const first = await importer.importFiles([file], {
      onProgress: (p) => {
        if (p.bytesDone >= nextSample) {
          rss.push(Math.round(process.memoryUsage().rss / 1e6));
          nextSample += p.bytesTotal / 10;
        }
      },
    });
    const headFile = join(dir, 'SYNTHETIC-head-200000.csv');
    await writeSyntheticFile(headFile, Math.min(200_000, rows));
    const again = await importer.importFiles([headFile]);
    await store.close();

    const server = await startServer({ DATABASE_URL: benchUrl, DATABASE_POOL_SIZE: String(POOL), LOG_LEVEL: 'warn' });
    try {
      const names = nameQueries(2000).map((q) => `/api/CharitySearch?Name=${encodeURIComponent(q)}`);
      const eins = einQueries(2000, rows).map((e) => `/api/CharitySearch?EIN=${encodeURIComponent(e)}`);
      // Warm up (JIT, plans, caches) before measuring.
      await closedLoop({ baseUrl: server.url, paths: names, connections: CLIENTS, seconds: 3 });
      await closedLoop({ baseUrl: server.url, paths: eins, connections: CLIENTS, seconds: 2 });
      const nameSearch = await closedLoop({ baseUrl: server.url, paths: names, connections: CLIENTS, seconds: options.seconds });
      const einLookup = await closedLoop({ baseUrl: server.url, paths: eins, connections: CLIENTS, seconds: options.seconds });
      return {
        store: 'postgres',
        synthetic: true,
        rows,
        fileMb: Math.round(bytes / 1e6),
        import: {
          seconds: Number(first.seconds.toFixed(1)),
          rowsPerSec: Math.round(first.totals.read / first.seconds),
          totals: first.totals,
          importerRssMbAtEachTenth: rss,
        },
        reimportUnchanged: {
          rows: again.totals.read,
          seconds: Number(again.seconds.toFixed(1)),
          rowsPerSec: Math.round(again.totals.read / again.seconds),
          totals: again.totals,
        },
        clients: CLIENTS,
        serverPoolSize: POOL,
        nameSearch,
        einLookup,
        targets: 'import >= 50000 rows/s; name search p95 <= 20 ms; EIN lookup p95 <= 5 ms',
        meetsTargets: {
          importRate: first.totals.read / first.seconds >= 50_000,
          nameSearchP95: nameSearch.p95Ms <= 20,
          einLookupP95: einLookup.p95Ms <= 5,
        },
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}
