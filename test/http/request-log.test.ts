import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createLogger, prettyDestination, prettyLogs } from '../../src/platform/logging.ts';
import { type TestContext, createTestContext } from '../helpers/context.ts';
import { card } from './api/refund-void-fixtures.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

interface Line {
  msg: string;
  reqId?: string;
  route?: string;
  partnerId?: string;
  res?: { statusCode: number };
  req?: { url: string };
}

const linesOf = (reqId: string, from: number): Line[] =>
  ctx.logs
    .slice(from)
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l.reqId === reqId);

describe("a request's log lines", () => {
  it('carry the route template, and the line that ends it the partner id of its AccessToken, never the token', async () => {
    const token = await ctx.token(ctx.nonProfit);
    const from = ctx.logs.length;
    const res = await ctx.app.inject({ method: 'POST', url: '/api/payment', payload: card(), headers: { AccessToken: token } });
    expect(res.statusCode).toBe(201);
    const lines = linesOf(res.headers['x-request-id'] as string, from);
    const incoming = lines.find((l) => l.msg === 'incoming request')!;
    const completed = lines.find((l) => l.msg === 'request completed')!;
    expect(incoming.route).toBe('/api/payment');
    expect(completed).toMatchObject({ route: '/api/payment', partnerId: ctx.nonProfit.ClientId, res: { statusCode: 201 } });
    expect(ctx.logs.slice(from).join('\n')).not.toContain(token);
  });

  it('name the route by its template, not by the ids in its URL, and no partner when none authenticated', async () => {
    const from = ctx.logs.length;
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const res = await ctx.app.inject({ method: 'GET', url: `/paylink/${id}` });
    const lines = linesOf(res.headers['x-request-id'] as string, from);
    const completed = lines.find((l) => l.msg === 'request completed')!;
    expect(completed.route).toBe('/paylink/:id');
    expect(completed.partnerId).toBeUndefined();
    expect(JSON.stringify(lines)).not.toContain(id);
  });

  it('leave the route out of a request no route matched', async () => {
    const from = ctx.logs.length;
    const res = await ctx.app.inject({ method: 'GET', url: '/no/such/thing' });
    expect(res.statusCode).toBe(404);
    const completed = linesOf(res.headers['x-request-id'] as string, from).find((l) => l.msg === 'request completed')!;
    expect(completed).toMatchObject({ res: { statusCode: 404 } });
    expect(completed.route).toBeUndefined();
  });
});

describe('readable log lines (LOG_FORMAT=pretty)', () => {
  async function prettyLines(write: (log: ReturnType<typeof createLogger>) => void): Promise<string> {
    const written: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        written.push(String(chunk));
        done();
      },
    });
    const log = createLogger('info', await prettyDestination({ colorize: false, destination: sink }));
    write(log);
    return written.join('');
  }

  it('are one line each, with the time, the level and the message, and still redacted', async () => {
    const text = await prettyLines((log) => {
      log.info({ partnerId: 'p-1', ClientSecret: 'very-secret' }, 'partner created');
      log.warn('the database is slow');
    });
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: partner created .*"partnerId":"p-1"/);
    expect(lines[0]).toContain('[REDACTED]');
    expect(text).not.toContain('very-secret');
    expect(lines[1]).toMatch(/WARN: the database is slow/);
    expect(() => JSON.parse(lines[0]!)).toThrow();
  });

  it("read a request's two lines as an access log does", async () => {
    const text = await prettyLines((log) => {
      log.info({ reqId: 'r1', req: { method: 'POST', url: '/api/payment' }, route: '/api/payment' }, 'incoming request');
      log.info({ reqId: 'r1', res: { statusCode: 201 }, responseTime: 12.4, route: '/api/payment', partnerId: 'p-1' }, 'request completed');
    });
    const [incoming, completed] = text.trimEnd().split('\n');
    expect(incoming).toMatch(/INFO: --> POST \/api\/payment /);
    expect(completed).toMatch(/INFO: <-- 201 \/api\/payment 12 ms .*"partnerId":"p-1"/);
  });

  it('are the default in a terminal outside production; JSON lines otherwise, and LOG_FORMAT decides when set', () => {
    expect(prettyLogs(undefined, { nodeEnv: 'development', terminal: true })).toBe(true);
    expect(prettyLogs(undefined, { nodeEnv: 'development', terminal: false })).toBe(false);
    expect(prettyLogs(undefined, { nodeEnv: 'production', terminal: true })).toBe(false);
    expect(prettyLogs('pretty', { nodeEnv: 'production', terminal: false })).toBe(true);
    expect(prettyLogs('json', { nodeEnv: 'development', terminal: true })).toBe(false);
    expect(loadConfig({ LOG_FORMAT: 'Pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(ConfigError);
  });
});

describe('METRICS_PORT', () => {
  it('is on in development (9464, where a port in use only warns), off in production unless set, and never the public port', () => {
    expect(loadConfig({}).metrics).toEqual({ port: 9464, explicit: false });
    expect(loadConfig({ NODE_ENV: 'production' }).metrics).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'production', METRICS_PORT: '9100' }).metrics).toEqual({ port: 9100, explicit: true });
    expect(loadConfig({ METRICS_PORT: 'off' }).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '0' }).metrics).toEqual({ port: 0, explicit: true });
    expect(() => loadConfig({ PORT: '9100', METRICS_PORT: '9100' })).toThrow(/must not be PORT/);
    expect(() => loadConfig({ METRICS_PORT: 'on' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(ConfigError);
  });
});
