import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger } from '../../src/platform/lazy-logger.ts';
import { loggerOptions } from '../../src/platform/logging.ts';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino(loggerOptions(level), stream), lines };
}

describe('lazyChildLogger', () => {
  it('writes the same lines as a pino child, bindings and redaction included', () => {
    const { logger, lines } = capture('info');
    let made = 0;
    const parent = new Proxy(logger, { get: (t, p) => (p === 'child' ? (...a: Parameters<typeof logger.child>) => (made++, t.child(...a)) : Reflect.get(t, p)) });
    const log = lazyChildLogger(parent, { reqId: 'req-1' }, {});
    log.debug('not written');
    expect(made).toBe(0);
    log.info({ CcAccountNum: '4242424242424242', n: 1 }, 'written');
    log.warn('again');
    expect(made).toBe(1);
    expect(lines.map((l) => [l.reqId, l.msg, l.CcAccountNum])).toEqual([
      ['req-1', 'written', '[REDACTED]'],
      ['req-1', 'again', undefined],
    ]);
    expect(log.level).toBe('info');
  });

  it('creates no child when nothing is written, and honours a route-level level', () => {
    const { logger, lines } = capture('warn');
    const log = lazyChildLogger(logger, { reqId: 'r' }, {});
    log.info('dropped');
    log.debug('dropped');
    expect(lines).toEqual([]);
    const verbose = lazyChildLogger(logger, { reqId: 'v' }, { level: 'debug' });
    verbose.debug('kept');
    expect(lines.map((l) => l.msg)).toEqual(['kept']);
    const child = lazyChildLogger(logger, { reqId: 'c' }, {}).child({ extra: 1 });
    child.error('nested');
    expect(lines.at(-1)).toMatchObject({ reqId: 'c', extra: 1, msg: 'nested' });
  });
});
