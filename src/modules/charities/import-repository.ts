import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { CharityRecord } from '../../domain/charities/charity.ts';
import type { SqlClient, Store } from '../../platform/database/database.ts';
import { appSettings } from '../../platform/database/schema/index.ts';
import { eq } from '../../platform/database/drizzle.ts';
import { CHARITY_COLUMNS } from './charity-rows.ts';

/**
 * Every statement of the charity import. One statement per batch: the rows travel as one array
 * per column (unnest), are inserted or updated by CharityId, and an unchanged row is not written
 * at all, so a re-import of the same file costs reads only. The same statement keeps each written
 * row's entry in charity_names, what name searches read.
 */

/** Any fixed number: imports into one database take turns. */
const CHARITY_IMPORT_LOCK = 727_008;
/** New name words per statement. */
const WORDS_PER_STATEMENT = 5000;

const names = CHARITY_COLUMNS.map(([n]) => n);
/** What charity_names keeps of each charity (the same column names as in charities). */
const NAME_COLUMNS = 'id, registry, registry_number, search_name';
const changing = names.filter((n) => n !== 'id');

const UPSERT = `
WITH input AS (
  SELECT * FROM unnest(${CHARITY_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) AS t(${names.join(', ')})
), written AS (
  INSERT INTO charities AS c (${names.join(', ')}, updated_at)
  SELECT ${names.join(', ')}, now() FROM input
  ON CONFLICT (id) DO UPDATE SET ${changing.map((n) => `${n} = excluded.${n}`).join(', ')}, updated_at = now()
  WHERE (${changing.map((n) => `c.${n}`).join(', ')}) IS DISTINCT FROM (${changing.map((n) => `excluded.${n}`).join(', ')})
  RETURNING ${NAME_COLUMNS}, (xmax = 0) AS inserted
), named AS (
  INSERT INTO charity_names AS n (${NAME_COLUMNS})
  SELECT ${NAME_COLUMNS} FROM written
  ON CONFLICT (id) DO UPDATE SET registry = excluded.registry, registry_number = excluded.registry_number, search_name = excluded.search_name
  WHERE (n.registry, n.registry_number, n.search_name) IS DISTINCT FROM (excluded.registry, excluded.registry_number, excluded.search_name)
)
SELECT count(*) FILTER (WHERE inserted) AS inserted, count(*) FILTER (WHERE NOT inserted) AS updated FROM written`;

/** New name words (split on spaces, as the name index splits search_name). */
const ADD_WORDS = `
INSERT INTO charity_words (word)
SELECT DISTINCT w FROM unnest($1::text[]) AS w
ON CONFLICT (word) DO NOTHING`;

/** The central organization of each group exemption: the lowest EIN when there are several. */
const REFRESH_GROUPS = [
  `INSERT INTO charity_groups (group_exemption, central_id, central_name)
   SELECT DISTINCT ON (group_exemption) group_exemption, id, name
   FROM charities WHERE group_role = 'central'
   ORDER BY group_exemption, registry_number
   ON CONFLICT (group_exemption) DO UPDATE SET central_id = excluded.central_id, central_name = excluded.central_name
   WHERE (charity_groups.central_id, charity_groups.central_name) IS DISTINCT FROM (excluded.central_id, excluded.central_name)`,
  `DELETE FROM charity_groups g WHERE NOT EXISTS (
     SELECT 1 FROM charities c WHERE c.id = g.central_id AND c.group_role = 'central' AND c.group_exemption = g.group_exemption)`,
];

/** Secondary indexes of the directory's tables (the primary keys stay: upserts need them). */
const SECONDARY_INDEXES = `
SELECT indexname, indexdef FROM pg_indexes
WHERE schemaname = current_schema() AND tablename IN ('charities', 'charity_names', 'charity_words')
  AND indexname NOT IN ('charities_pkey', 'charity_names_pkey', 'charity_words_pkey')
ORDER BY indexname`;

/** Statistics (charity_names' with its vacuum below: the name index's word frequencies steer the plans). */
const ANALYZE = 'ANALYZE charities; ANALYZE charity_words';
/**
 * charity_names is vacuumed as well as analyzed: a name search reads the names beginning with the
 * query from the name index alone (an index-only scan) only where the table's pages are marked
 * all-visible, which a vacuum does (a statement of its own: not inside a transaction block).
 */
const VACUUM_NAMES = 'VACUUM (ANALYZE) charity_names';
const VACUUM_NAMES_ONLY = 'VACUUM charity_names';

/** The marker of the demo directory (app_settings): the shipped samples were imported into this database. */
const SAMPLES_KEY = 'demo-charities';

/** A secondary index dropped for a first load, and how to build it again. */
export interface DroppedIndex {
  name: string;
  definition: string;
}

/** Whether an import failed because one charity came twice (COPY cannot upsert). */
export const isDuplicateCharity = (err: unknown) => (err as { code?: string } | null)?.code === '23505';

export class CharityImportRepository {
  readonly #store: Store;
  readonly #databaseUrl: string | undefined;

  /** `databaseUrl`: on PostgreSQL the importer works on a connection of its own (COPY needs one). */
  constructor(store: Store, databaseUrl?: string) {
    this.#store = store;
    this.#databaseUrl = store.kind === 'postgres' ? databaseUrl : undefined;
  }

  /**
   * Runs `fn` on the import's session: one import at a time per database, on one connection of its
   * own, without PostgreSQL's JIT compiler (it would spend more time compiling each batch statement
   * than running it).
   */
  async session<T>(fn: (session: ImportSession) => Promise<T>): Promise<T> {
    return this.#withConnection(async (sql, client) => {
      await sql.exec('SET jit = off');
      try {
        return await fn(new ImportSession(sql, client));
      } finally {
        await sql.exec('RESET jit');
      }
    });
  }

  async #withConnection<T>(fn: (sql: SqlClient, client: pg.Client | undefined) => Promise<T>): Promise<T> {
    if (!this.#databaseUrl) return this.#store.withAdvisoryLock(CHARITY_IMPORT_LOCK, (sql) => fn(sql, undefined));
    const client = new pg.Client({ connectionString: this.#databaseUrl });
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [CHARITY_IMPORT_LOCK]);
      return await fn(sqlOf(client), client);
    } finally {
      await client.end();
    }
  }

  /** Whether the shipped samples were imported into this database. */
  async samplesImported(): Promise<boolean> {
    const [marker] = await this.#store.db.select().from(appSettings).where(eq(appSettings.key, SAMPLES_KEY));
    return marker !== undefined;
  }

  async markSamplesImported(value: { files: string[]; rows: number }): Promise<void> {
    await this.#store.db.insert(appSettings).values({ key: SAMPLES_KEY, value }).onConflictDoNothing();
  }
}

/** The import's connection: what it writes, and the transaction of a first load. */
export class ImportSession {
  readonly #sql: SqlClient;
  readonly #client: pg.Client | undefined;

  constructor(sql: SqlClient, client: pg.Client | undefined) {
    this.#sql = sql;
    this.#client = client;
  }

  /** Whether rows can stream in by COPY: PostgreSQL, on a connection of the import's own. */
  get canCopy(): boolean {
    return this.#client !== undefined;
  }

  async directoryIsEmpty(): Promise<boolean> {
    const [{ empty }] = (await this.#sql.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM charities) AS empty')) as [{ empty: boolean }];
    return empty;
  }

  /** Runs `fn` in one transaction: committed if it returns, rolled back if it throws. */
  async inTransaction<T>(fn: () => Promise<T>): Promise<T> {
    await this.#sql.exec('BEGIN');
    try {
      const result = await fn();
      await this.#sql.exec('COMMIT');
      return result;
    } catch (err) {
      await this.#sql.exec('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  /** Inserts or updates a batch (no two records with the same id). */
  async upsert(records: CharityRecord[]): Promise<{ inserted: number; updated: number }> {
    if (records.length === 0) return { inserted: 0, updated: 0 };
    const columns = CHARITY_COLUMNS.map(([, , value]) => records.map(value));
    const [row] = await this.#sql.query<{ inserted: number | string; updated: number | string }>(UPSERT, columns);
    return { inserted: Number(row?.inserted ?? 0), updated: Number(row?.updated ?? 0) };
  }

  /** Adds the name words the vocabulary does not have yet, WORDS_PER_STATEMENT at a time. */
  async addWords(words: string[]): Promise<void> {
    for (let i = 0; i < words.length; i += WORDS_PER_STATEMENT) await this.#sql.query(ADD_WORDS, [words.slice(i, i + WORDS_PER_STATEMENT)]);
  }

  /**
   * Loading into an empty directory: drops the secondary indexes, to be built once at the end
   * (a sorted build costs a fraction of maintaining them row by row). Returns how to rebuild them.
   */
  async dropSecondaryIndexes(): Promise<DroppedIndex[]> {
    const indexes = await this.#sql.query<{ indexname: string; indexdef: string }>(SECONDARY_INDEXES);
    for (const { indexname } of indexes) await this.#sql.exec(`DROP INDEX IF EXISTS "${indexname}"`);
    return indexes.map((i) => ({ name: i.indexname, definition: i.indexdef }));
  }

  /** Drops the primary key of charities when no foreign key depends on it; true if dropped. */
  async dropPrimaryKeyUnlessReferenced(): Promise<boolean> {
    const [row] = await this.#sql.query<{ referenced: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE confrelid = 'charities'::regclass) AS referenced`,
    );
    if (row?.referenced) return false;
    await this.#sql.exec('ALTER TABLE charities DROP CONSTRAINT charities_pkey');
    return true;
  }

  async addPrimaryKey(): Promise<void> {
    await this.#sql.exec(`SET LOCAL maintenance_work_mem = '256MB'`);
    await this.#sql.exec('ALTER TABLE charities ADD CONSTRAINT charities_pkey PRIMARY KEY (id)');
  }

  /** Empties charity_names, for a first load (the directory is empty: so should it be). */
  async clearNames(): Promise<void> {
    await this.#sql.exec('DELETE FROM charity_names');
  }

  /**
   * After a COPY into the empty directory: every charity's entry in charity_names, in one
   * statement, its primary key built once at the end.
   */
  async fillNames(): Promise<void> {
    await this.#sql.exec('ALTER TABLE charity_names DROP CONSTRAINT charity_names_pkey');
    await this.#sql.exec(`INSERT INTO charity_names (${NAME_COLUMNS}) SELECT ${NAME_COLUMNS} FROM charities`);
    await this.#sql.exec('ALTER TABLE charity_names ADD CONSTRAINT charity_names_pkey PRIMARY KEY (id)');
  }

  /** Builds the indexes a first load dropped (in its transaction: with more memory for the sorts). */
  async createIndexes(indexes: DroppedIndex[]): Promise<void> {
    await this.#sql.exec(`SET LOCAL maintenance_work_mem = '512MB'`);
    for (const index of indexes) await this.#sql.exec(index.definition.replace(/^CREATE (UNIQUE )?INDEX /, 'CREATE $1INDEX IF NOT EXISTS '));
  }

  async refreshGroups(): Promise<void> {
    for (const statement of REFRESH_GROUPS) await this.#sql.query(statement);
  }

  /**
   * Fresh statistics, so the planner sees a directory that just grew (or appeared). The vacuum also
   * runs after an import that changed nothing: a database upgraded by migration 0017 gets its pages
   * marked then (a vacuum skips the pages already marked: cheap when nothing changed).
   */
  async refreshStatistics(changed: boolean): Promise<void> {
    if (changed) await this.#sql.exec(ANALYZE);
    await this.#sql.exec(changed ? VACUUM_NAMES : VACUUM_NAMES_ONLY);
  }

  /** Starts streaming rows into charities by COPY (the session must be able to: `canCopy`). */
  openCopy(): CopySink {
    return CopySink.open(this.#client!);
  }
}

/**
 * The first load of an empty directory on PostgreSQL: rows stream into the table through
 * COPY FROM STDIN, the fastest way in, while the next rows are being parsed. COPY cannot upsert,
 * so a charity that appears twice across the files makes it fail with a unique violation
 * (`isDuplicateCharity`); the importer then starts over with batched upserts.
 */
export class CopySink {
  readonly #stream: ReturnType<typeof copyFrom>;
  #error: Error | undefined;

  private constructor(stream: ReturnType<typeof copyFrom>) {
    this.#stream = stream;
    stream.on('error', (err) => {
      this.#error = err;
    });
  }

  static open(client: pg.Client): CopySink {
    const columns = CHARITY_COLUMNS.map(([name]) => name).join(', ');
    return new CopySink(client.query(copyFrom(`COPY charities (${columns}) FROM STDIN`)));
  }

  /** Rows as COPY text (charity-rows.ts). */
  async write(text: string): Promise<void> {
    if (this.#error) throw this.#error;
    // Back pressure: memory holds what PostgreSQL has not taken yet, one batch at most.
    if (!this.#stream.write(text)) await once(this.#stream, 'drain');
  }

  async finish(): Promise<void> {
    if (this.#error) throw this.#error;
    this.#stream.end();
    await finished(this.#stream);
  }
}

/** One connection of the importer's own (COPY needs the client itself, not the pool's wrapper). */
function sqlOf(client: pg.Client): SqlClient {
  return {
    exec: async (text) => {
      await client.query(text);
    },
    query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params as unknown[])).rows as T[],
  };
}
