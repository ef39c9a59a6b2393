import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';

describe('TRUST_PROXY', () => {
  it('takes off, on (one hop), a hop count or proxy addresses, and nothing else', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'off' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'on' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8,127.0.0.1');
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow(ConfigError);
  });

  it('makes DEMO default to off in production', () => {
    expect(loadConfig({}).demo).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).demo).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', DEMO: 'on' }).demo).toBe(true);
  });
});

describe('behind one trusted proxy', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ config: { trustProxy: 1, sessionRateLimitPerMinute: 3 } });
  });
  afterAll(() => ctx.close());

  /** Failed logins through the proxy at 10.0.0.2, one per X-Forwarded-For value: their statuses. */
  const loginsVia = async (forwardedFor: string[]) => {
    const statuses: number[] = [];
    for (const xff of forwardedFor) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/ClientSession',
        remoteAddress: '10.0.0.2',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': xff },
        payload: { ClientId: ctx.nonProfit.ClientId, ClientSecret: 'wrong' },
      });
      statuses.push(res.statusCode);
    }
    return statuses;
  };

  it('counts the address the proxy saw, not what the client wrote into X-Forwarded-For', async () => {
    // The client forged the left part; the proxy appended the address it saw.
    expect(await loginsVia([0, 1, 2, 3, 4].map((i) => `198.51.100.${i}, 203.0.113.7`))).toEqual([400, 400, 400, 429, 429]);
  });

  it('tells clients apart by the address the proxy saw (Fastify 5 reads a bare hop count as "trust no one")', async () => {
    // Five clients behind one proxy: none is over the limit of 3.
    expect(await loginsVia([0, 1, 2, 3, 4].map((i) => `203.0.113.${100 + i}`))).toEqual([400, 400, 400, 400, 400]);
  });
});
