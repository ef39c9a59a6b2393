import type { CharityRecord } from '../domain/charities/charity.ts';
import type { SqlClient } from '../store/database.ts';

/**
 * Writes imported charities. One statement per batch: the rows travel as one array per column
 * (unnest), are inserted or updated by CharityId, and an unchanged row is not written at all,
 * so a re-import of the same file costs reads only.
 */
const COLUMNS = [
  ['id', 'uuid'],
  ['registry', 'text'],
  ['registry_number', 'text'],
  ['tax_id_root', 'text'],
  ['name', 'text'],
  ['search_name', 'text'],
  ['ein', 'text'],
  ['address1', 'text'],
  ['address2', 'text'],
  ['city', 'text'],
  ['city_key', 'text'],
  ['state', 'text'],
  ['zip', 'text'],
  ['country', 'text'],
  ['ntee_code', 'text'],
  ['eligible', 'boolean'],
  ['group_exemption', 'text'],
  ['group_role', 'text'],
] as const;

const VALUES: ((r: CharityRecord) => string | boolean | null)[] = [
  (r) => r.id,
  (r) => r.registry,
  (r) => r.registryNumber,
  (r) => r.taxIdRoot,
  (r) => r.name,
  (r) => r.searchName,
  (r) => r.ein,
  (r) => r.address1,
  (r) => r.address2,
  (r) => r.city,
  (r) => r.cityKey,
  (r) => r.state,
  (r) => r.zip,
  (r) => r.country,
  (r) => r.nteeCode,
  (r) => r.eligible,
  (r) => r.groupExemption,
  (r) => r.groupRole,
];

const names = COLUMNS.map(([n]) => n);
const changing = names.filter((n) => n !== 'id');

const UPSERT = `
WITH input AS (
  SELECT * FROM unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) AS t(${names.join(', ')})
), written AS (
  INSERT INTO charities AS c (${names.join(', ')}, updated_at)
  SELECT ${names.join(', ')}, now() FROM input
  ON CONFLICT (id) DO UPDATE SET ${changing.map((n) => `${n} = excluded.${n}`).join(', ')}, updated_at = now()
  WHERE (${changing.map((n) => `c.${n}`).join(', ')}) IS DISTINCT FROM (${changing.map((n) => `excluded.${n}`).join(', ')})
  RETURNING (xmax = 0) AS inserted
)
SELECT count(*) FILTER (WHERE inserted) AS inserted, count(*) FILTER (WHERE NOT inserted) AS updated FROM written`;

/** New words, split the way the name index splits them, so the two always agree. */
const ADD_WORDS = `
INSERT INTO charity_words (word)
SELECT DISTINCT w FROM unnest(tsvector_to_array(to_tsvector('simple', $1::text))) AS w
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
WHERE schemaname = current_schema() AND tablename IN ('charities', 'charity_words')
  AND indexname NOT IN ('charities_pkey', 'charity_words_pkey')
ORDER BY indexname`;

export class CharityWriter {
  readonly #sql: SqlClient;

  constructor(sql: SqlClient) {
    this.#sql = sql;
  }

  /** Inserts or updates a batch (no two records with the same id). */
  async upsert(records: CharityRecord[]): Promise<{ inserted: number; updated: number }> {
    if (records.length === 0) return { inserted: 0, updated: 0 };
    const columns = VALUES.map((value) => records.map(value));
    const [row] = await this.#sql.query<{ inserted: number | string; updated: number | string }>(UPSERT, columns);
    return { inserted: Number(row?.inserted ?? 0), updated: Number(row?.updated ?? 0) };
  }

  async addWords(words: string[]): Promise<void> {
    if (words.length) await this.#sql.query(ADD_WORDS, [words.join(' ')]);
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

  async createIndexes(indexes: { name: string; definition: string }[]): Promise<void> {
    for (const index of indexes) await this.#sql.exec(index.definition.replace(/^CREATE (UNIQUE )?INDEX /, 'CREATE $1INDEX IF NOT EXISTS '));
  }

  async refreshGroups(): Promise<void> {
    for (const statement of REFRESH_GROUPS) await this.#sql.query(statement);
  }
}
