import type { Readable } from 'node:stream';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { translateDatabaseError } from './errors.ts';

/**
 * `COPY (query) TO STDOUT` as a stream: PostgreSQL writes the file itself (CSV, say) and this
 * process passes its bytes on. The copy reads the server's output only as its reader asks
 * (pg-copy-streams pauses the connection): a slow reader holds the query, it does not fill
 * memory. It runs on a connection of its own, in a read-only transaction that `setup` starts
 * with (COPY takes no bound parameters: setup sets them, `set_config(..., true)`, and the query
 * reads them with `current_setting`).
 *
 * Destroying the stream before its end cancels the statement and drops the connection.
 */
export async function openCopyOut(pool: pg.Pool, cancelWith: () => pg.Client, setup: { text: string; params: unknown[] }, copyText: string): Promise<Readable> {
  const client = await pool.connect();
  let stream: Readable & { handleError?: unknown };
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(setup.text, setup.params);
    stream = client.query(copyTo(copyText));
  } catch (err) {
    client.release(true);
    throw translateDatabaseError(err);
  }
  let released = false;
  const release = (keep: boolean) => {
    if (released) return;
    released = true;
    client.release(!keep);
  };
  stream.once('end', () => {
    client.query('COMMIT').then(
      () => release(true),
      () => release(false),
    );
  });
  stream.once('close', () => {
    if (stream.readableEnded) return;
    // Destroyed before its end (the reader went away) or failed: the server may still be
    // writing rows; cancel, then drop the connection.
    (cancelWith() as unknown as { cancel(client: unknown, query: unknown): void }).cancel(client, stream);
    release(false);
  });
  // The first bytes (or the end, or the failure) before the caller answers: a statement that
  // fails does so before anything is sent, in the service's words.
  await new Promise<void>((resolve, reject) => {
    const settle = (err?: unknown) => {
      stream.off('readable', onReadable);
      stream.off('error', settle);
      if (err) reject(translateDatabaseError(err));
      else resolve();
    };
    const onReadable = () => settle();
    stream.once('readable', onReadable);
    stream.once('error', settle);
  }).catch((err: unknown) => {
    stream.destroy();
    throw err;
  });
  return stream;
}
