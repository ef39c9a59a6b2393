import type { CharityRecord } from '../../domain/charities/charity.ts';
import type { SqlClient } from '../../platform/database/database.ts';

/**
 * Writes imported charities. One statement per batch: the rows travel as one array per column
 * (unnest), are inserted or updated by CharityId, and an unchanged row is not written at all,
 * so a re-import of the same file costs reads only. The same statement keeps each written row's
 * entry in charity_names, what name searches read.
 */
/** The columns an import writes, their SQL types, and where each value comes from. */
export const CHARITY_COLUMNS: [string, string, (r: CharityRecord) => string | boolean | null][] = [
  ['id', 'uuid', (r) => r.id],
  ['registry', 'text', (r) => r.registry],
  ['registry_number', 'text', (r) => r.registryNumber],
  ['tax_id_root', 'text', (r) => r.taxIdRoot],
  ['name', 'text', (r) => r.name],
  ['search_name', 'text', (r) => r.searchName],
  ['ein', 'text', (r) => r.ein],
  ['address1', 'text', (r) => r.address1],
  ['address2', 'text', (r) => r.address2],
  ['city', 'text', (r) => r.city],
  ['city_key', 'text', (r) => r.cityKey],
  ['state', 'text', (r) => r.state],
  ['zip', 'text', (r) => r.zip],
  ['country', 'text', (r) => r.country],
  ['ntee_code', 'text', (r) => r.nteeCode],
  ['eligible', 'boolean', (r) => r.eligible],
  ['group_exemption', 'text', (r) => r.groupExemption],
  ['group_role', 'text', (r) => r.groupRole],
];

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

export class CharityWriter {
  readonly #sql: SqlClient;

  constructor(sql: SqlClient) {
    this.#sql = sql;
  }

  /** Inserts or updates a batch (no two records with the same id). */
  async upsert(records: CharityRecord[]): Promise<{ inserted: number; updated: number }> {
    if (records.length === 0) return { inserted: 0, updated: 0 };
    const columns = CHARITY_COLUMNS.map(([, , value]) => records.map(value));
    const [row] = await this.#sql.query<{ inserted: number | string; updated: number | string }>(UPSERT, columns);
    return { inserted: Number(row?.inserted ?? 0), updated: Number(row?.updated ?? 0) };
  }

  async addWords(words: string[]): Promise<void> {
    if (words.length) await this.#sql.query(ADD_WORDS, [words]);
  }

  /**
   * Loading into an empty directory: drops the secondary indexes, to be built once at the end
   * (a sorted build costs a fraction of maintaining them row by row). Returns how to rebuild them.
   */
  async dropSecondaryIndexes(): Promise<{ name: string; definition: string }[]> {
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

  async createIndexes(indexes: { name: string; definition: string }[]): Promise<void> {
    for (const index of indexes) await this.#sql.exec(index.definition.replace(/^CREATE (UNIQUE )?INDEX /, 'CREATE $1INDEX IF NOT EXISTS '));
  }

  async refreshGroups(): Promise<void> {
    for (const statement of REFRESH_GROUPS) await this.#sql.query(statement);
  }
}
