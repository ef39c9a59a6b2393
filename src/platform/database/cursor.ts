import pg from 'pg';
import Cursor from 'pg-cursor';
import { translateDatabaseError } from './errors.ts';

/**
 * The rows of one query, read a batch at a time from a server-side cursor: memory holds one
 * batch whatever the result's size, and the next batch is read only when asked (the reader's
 * pace is the query's). The query runs on a connection of its own, in one snapshot.
 */
export interface RowCursor<T> {
  /** Up to `rows` more rows; none once the query is done. */
  read(rows: number): Promise<T[]>;
  /**
   * Ends the query and gives its connection back. A read in flight (a sort that takes seconds
   * before the first row) is cancelled on the server, not waited for.
   */
  close(): Promise<void>;
}

/** How long a cancelled read may take to end before its connection is dropped. */
const CANCEL_WAIT_MS = 2_000;

type PgClient = pg.PoolClient & { processID: number | null; activeQuery?: unknown };

/**
 * Opens `text` as a cursor on a connection of `pool`. `cancelWith` makes the connection that
 * sends a cancel request (PostgreSQL's protocol: a new socket naming the backend, no login).
 */
export async function openCursor<T>(pool: pg.Pool, cancelWith: () => pg.Client, text: string, params: unknown[]): Promise<RowCursor<T>> {
  const client = (await pool.connect()) as PgClient;
  const cursor = client.query(new Cursor<T>(text, params));
  let reading: Promise<T[]> | undefined;
  let closed = false;
  return {
    async read(rows) {
      if (closed) return [];
      reading = cursor.read(rows);
      try {
        return await reading;
      } catch (err) {
        throw translateDatabaseError(err);
      } finally {
        reading = undefined;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (reading) {
        // The statement may be busy for long before its next row: cancel it, then drop the
        // connection (its protocol state after a cancelled portal is not worth reusing).
        const inFlight = reading.catch(() => []);
        // pg's cancel request (Client#cancel, not in its type definitions): PostgreSQL's protocol
        // cancel, sent on a new socket naming the backend; it needs no login and no pool slot.
        (cancelWith() as unknown as { cancel(client: unknown, query: unknown): void }).cancel(client, cursor);
        // Dropping the connection ends the read too, should the cancel request not arrive.
        await Promise.race([inFlight, new Promise((resolve) => setTimeout(resolve, CANCEL_WAIT_MS).unref())]);
        client.release(true);
        return;
      }
      try {
        await cursor.close();
        client.release();
      } catch {
        client.release(true);
      }
    },
  };
}
