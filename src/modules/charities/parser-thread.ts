import { Worker } from 'node:worker_threads';
import type { FileLine } from './import-reader.ts';
import type { ParseReply, ParseRequest } from './parse-worker.ts';

export type BatchReply = Extract<ParseReply, { copyText: string }>;

const PARSER_YOUNG_GENERATION_MB = 16;

/**
 * The parsing thread of a COPY load (parse-worker.ts): batches of lines go in, COPY
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
