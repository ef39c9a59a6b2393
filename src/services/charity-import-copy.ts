import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { CharityRecord } from '../domain/charities/charity.ts';
import type { SqlClient } from '../store/database.ts';
import { CHARITY_COLUMNS } from './charity-import-writer.ts';

/** COPY's text format: tab-separated, \N for null, backslash escapes. */
function copyValue(value: string | boolean | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
    : value;
}

/**
 * The first load of an empty directory on PostgreSQL: rows stream into the table through
 * COPY FROM STDIN, the fastest way in, while the next rows are being parsed. COPY cannot upsert,
 * so a charity that appears twice across the files makes it fail with a unique violation; the
 * importer then starts over with batched upserts.
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

  async write(records: CharityRecord[]): Promise<void> {
    if (this.#error) throw this.#error;
    let text = '';
    for (const r of records) text += CHARITY_COLUMNS.map(([, , value]) => copyValue(value(r))).join('\t') + '\n';
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
export function sqlOf(client: pg.Client): SqlClient {
  return {
    exec: async (text) => {
      await client.query(text);
    },
    query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params as unknown[])).rows as T[],
  };
}

export const isUniqueViolation = (err: unknown) => (err as { code?: string } | null)?.code === '23505';
