/**
 * A service whose output reader went away (`npm start | head -1`, a log shipper restarting)
 * keeps serving: what it would have written is dropped, not its payments. Node's default is to
 * crash on the first write after the pipe closed (EPIPE), which killed the service at its banner.
 * Any other output error still crashes, as before.
 */
const READER_GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

export function dropOutputWhenReaderGone(stream: NodeJS.EventEmitter): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (!READER_GONE.has(err.code ?? '')) throw err;
  });
}
