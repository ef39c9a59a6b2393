import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { SqlClient } from '../../platform/database/database.ts';
import type { FileLine } from './import-reader.ts';
import { CHARITY_COLUMNS } from './import-writer.ts';
import type { ParseReply, ParseRequest } from './parse-worker.ts';

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

  /** Rows as COPY text (charity-copy-text.ts). */
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
export function sqlOf(client: pg.Client): SqlClient {
  return {
    exec: async (text) => {
      await client.query(text);
    },
    query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params as unknown[])).rows as T[],
  };
}

export const isUniqueViolation = (err: unknown) => (err as { code?: string } | null)?.code === '23505';

type BatchReply = Extract<ParseReply, { copyText: string }>;

const PARSER_YOUNG_GENERATION_MB = 16;

/**
 * The parsing thread of a COPY load (charity-parse-worker.ts): batches of lines go in, COPY
 * text comes back in the same order.
 */
export class ParserThread {
  readonly #worker: Worker;
  readonly #waiting: { resolve: (reply: ParseReply) => void; reject: (err: Error) => void }[] = [];
  #dead: Error | undefined;

  constructor(header: string) {
    this.#worker = new Worker(new URL('./parse-worker.ts', import.meta.url), {
      workerData: { header },
      // A batch at a time and the name vocabulary: V8's default young generation would let each
      // thread reserve far more than that.
      resourceLimits: { maxYoungGenerationSizeMb: PARSER_YOUNG_GENERATION_MB },
    });
    this.#worker.on('message', (reply: ParseReply) => this.#waiting.shift()?.resolve(reply));
    const fail = (err: Error) => {
      this.#dead ??= err;
      for (const w of this.#waiting.splice(0)) w.reject(err);
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`the parsing thread stopped (exit code ${code})`)));
  }

  #ask(request: ParseRequest): Promise<ParseReply> {
    // A thread that died with nothing asked of it would never answer.
    if (this.#dead) return Promise.reject(this.#dead);
    return new Promise<ParseReply>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#worker.postMessage(request);
    }).then((reply) => {
      if ('failed' in reply) throw new Error(`parsing failed: ${reply.failed}`);
      return reply;
    });
  }

  async parse(lines: FileLine[]): Promise<BatchReply> {
    return (await this.#ask({ lines })) as BatchReply;
  }

  /** Every name word of the rows parsed, once each. */
  async words(): Promise<string[]> {
    return ((await this.#ask({ done: true })) as { words: string[] }).words;
  }

  async close(): Promise<void> {
    this.#worker.removeAllListeners('exit');
    await this.#worker.terminate();
  }
}
