/**
 * Runs items in batches, as a database's group commit does: when fewer than `slots` are running,
 * a batch starts at the end of the event loop's turn (setImmediate) with every item added in it;
 * items that arrive while the slots are busy wait and go together as the next batch. Alone, an
 * item waits only for its turn to end; under load, one statement serves many requests. The turn,
 * not the tick: a batching library that collects one tick (DataLoader) makes batches of one from
 * requests that arrive on their own sockets, and so does starting at once when a database runs
 * its statements on this thread (PGlite): no request reaches the batcher while a call runs.
 */
export class Batcher<I, O> {
  readonly #run: (items: I[]) => Promise<O[]>;
  readonly #slots: number;
  readonly #maxBatch: number;
  #queue: { item: I; resolve: (value: O) => void; reject: (err: unknown) => void }[] = [];
  #running = 0;
  #collecting = false;

  /** `run` answers each item, in order; a failure fails the whole batch. */
  constructor(run: (items: I[]) => Promise<O[]>, options: { slots?: number; maxBatch?: number } = {}) {
    this.#run = run;
    this.#slots = options.slots ?? 2;
    this.#maxBatch = options.maxBatch ?? 100;
  }

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#collecting) return;
      this.#collecting = true;
      setImmediate(() => {
        this.#collecting = false;
        this.#next();
      });
    });
  }

  #next(): void {
    while (this.#running < this.#slots && this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      this.#running++;
      let run: Promise<O[]>;
      try {
        run = this.#run(batch.map((b) => b.item));
      } catch (err) {
        run = Promise.reject(err);
      }
      run
        .then(
          (out) => batch.forEach((b, i) => b.resolve(out[i]!)),
          (err: unknown) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          this.#running--;
          this.#next();
        });
    }
  }
}
