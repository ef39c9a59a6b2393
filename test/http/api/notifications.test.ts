import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { startReceiver, verifySignature, type Receiver } from '../../helpers/receiver.ts';
import { makePayment } from './refund-void-fixtures.ts';

/** The notification routes of surface A, through app.inject, each answer checked against /openapi.json. */
let ctx: TestContext;
let strict: TestContext;
let receiver: Receiver;

const ACCESS_TOKEN = 'tok_9f8e7d6c5b4a3210secretvalue';

beforeAll(async () => {
  ctx = await createTestContext({ config: { notificationAllowPrivate: true } });
  // The production rules: https only, no private addresses.
  strict = await createTestContext({ config: { nodeEnv: 'production' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await ctx.close();
  await strict.close();
});

const item = (extra: Record<string, unknown> = {}) => ({ NotificationConfigurationTypeId: '1', NotificationProtocolTypeId: '1', NotificationUrl: receiver.url, ...extra });

async function put(c: TestContext, items: Record<string, unknown>[]) {
  const res = await c.as(c.nonProfit, { method: 'PUT', url: '/api/notificationConfig', payload: { NotificationConfigs: items } });
  await expectDocumented(c.app, 'PUT', '/api/notificationConfig', res);
  return res;
}

describe('PUT and GET /api/notificationConfig', () => {
  it('saves configs, answers them with their ids, and never echoes the AccessToken whole', async () => {
    const res = await put(ctx, [item({ Retries: 3, AccessToken: ACCESS_TOKEN })]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain(ACCESS_TOKEN);
    const [config] = res.json().NotificationConfigs;
    expect(config).toMatchObject({ NotificationConfigId: expect.any(Number), NotificationUrl: receiver.url, Retries: 3, AccessToken: '****alue', IsDeleted: false, IsPaused: false });
    const got = await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/notificationConfig' });
    await expectDocumented(ctx.app, 'GET', '/api/notificationConfig', got);
    expect(got.json().NotificationConfigs).toEqual([config]);
    expect(got.body).not.toContain(ACCESS_TOKEN);
    // Stored sealed: the token is in no column as it was sent.
    const dump = JSON.stringify(await ctx.store.sql.query('SELECT * FROM notification_configs'));
    expect(dump).not.toContain(ACCESS_TOKEN);
    // Another partner sees none of them.
    const other = await ctx.as(ctx.forProfit, { method: 'GET', url: '/api/notificationConfig' });
    expect(other.json().NotificationConfigs).toEqual([]);
  });

  it('the AccessToken goes as a header with each notification; IsDeleted removes a config', async () => {
    const [config] = (await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/notificationConfig' })).json().NotificationConfigs;
    const secret = (await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/notificationSecret' })).json().SigningSecret as string;
    const paid = await makePayment(ctx);
    await ctx.services.notificationWorker.deliverDue();
    const got = receiver.received.at(-1)!;
    expect(got.headers.accesstoken).toBe(ACCESS_TOKEN);
    expect(verifySignature(got.headers['payments-signature'] as string, got.body, secret)).toBe(true);

    const history = await ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/notifications?paymentId=${paid.PaymentId}` });
    await expectDocumented(ctx.app, 'GET', '/api/notifications', history);
    expect(history.json()).toEqual([
      expect.objectContaining({ NotificationConfigId: config.NotificationConfigId, PaymentId: paid.PaymentId, PaymentExternalId: paid.TransactionId, NotificationUrl: receiver.url, RetryCount: 0, Status: 'Delivered', Payload: got.body }),
    ]);
    const byExternal = await ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/notifications?paymentExternalId=${paid.TransactionId}` });
    expect(byExternal.json()).toEqual(history.json());

    const removed = await put(ctx, [item({ NotificationConfigId: config.NotificationConfigId, IsDeleted: true })]);
    expect(removed.json().NotificationConfigs).toEqual([]);
  });

  it('400 BrokenRules: e-mail protocol, type other than 1, Retries out of range, an unknown config id, a URL over 500 characters or with credentials', async () => {
    const res = await put(ctx, [
      item({ NotificationProtocolTypeId: '2' }),
      item({ NotificationConfigurationTypeId: '3' }),
      item({ Retries: 99 }),
      item({ NotificationConfigId: 987654 }),
      item({ NotificationUrl: `https://example.org/${'a'.repeat(500)}` }),
      item({ NotificationUrl: 'https://user:pass@example.org/hook' }),
      item({ NotificationUrl: 'ftp://example.org/hook' }),
    ]);
    expect(res.statusCode).toBe(400);
    const rules = res.json() as { ErrorCode: number; Field?: string; Message: string }[];
    expect(rules.map((r) => r.ErrorCode)).toEqual([9000, 1006, 1005, 3004, 9001, 9001, 9001]);
    expect(rules[0]!.Message).toMatch(/not supported/);
    // Nothing was saved.
    expect((await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/notificationConfig' })).json().NotificationConfigs).toEqual([]);
  });

  it('400 for an AccessToken that cannot be a header value: a control character, a letter beyond ASCII, over 500 characters', async () => {
    for (const token of ['a\u0001b', 'caf\u00e9-2026', 'line\r\nX-Injected: 1', '\u20ac', 'x'.repeat(501)]) {
      const res = await put(ctx, [item({ AccessToken: token })]);
      expect(res.statusCode, JSON.stringify(token)).toBe(400);
      expect(res.json()[0], JSON.stringify(token)).toMatchObject({ ErrorCode: 1003, Message: "'NotificationConfigs[0].AccessToken' must be at most 500 printable ASCII characters (it is sent as a header)." });
      const tested = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/notificationTest', payload: { Url: receiver.url, AccessToken: token } });
      expect(tested.statusCode, JSON.stringify(token)).toBe(400);
    }
  });

  it('in production: https only, and a host that is or resolves to a private, loopback, link-local or metadata address is refused', async () => {
    for (const url of ['http://example.org/hook', 'https://127.0.0.1/hook', 'https://169.254.169.254/latest', 'https://[::1]/hook', 'https://10.1.2.3/hook', 'https://localhost/hook', 'https://[::ffff:192.168.0.1]/x']) {
      const res = await put(strict, [{ NotificationConfigurationTypeId: '1', NotificationProtocolTypeId: '1', NotificationUrl: url }]);
      expect(res.statusCode, url).toBe(400);
      expect(res.json()[0].ErrorCode, url).toBe(9001);
    }
    // notificationTest obeys the same rules: it is not a way to probe the network.
    const probe = await strict.as(strict.nonProfit, { method: 'POST', url: '/api/notificationTest', payload: { Url: receiver.url } });
    expect(probe.statusCode).toBe(400);
    expect(probe.json()[0].ErrorCode).toBe(9001);
    expect(receiver.received.every((r) => !r.body.includes('"probe"'))).toBe(true);
  });
});

describe('POST /api/notificationTest', () => {
  it('posts the payload once and says what the receiver did', async () => {
    receiver.answer = () => 418;
    const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/notificationTest', payload: { Url: receiver.url, AccessToken: 'abc', Payload: { Hello: 'world' } } });
    receiver.answer = () => 200;
    await expectDocumented(ctx.app, 'POST', '/api/notificationTest', res);
    expect(res.json()).toMatchObject({ Delivered: false, StatusCode: 418, Error: null });
    expect(receiver.received.at(-1)!.body).toBe('{"Hello":"world"}');
    expect(receiver.received.at(-1)!.headers.accesstoken).toBe('abc');
    const refused = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/notificationTest', payload: { Url: 'http://127.0.0.1:1/nothing' } });
    expect(refused.json()).toMatchObject({ Delivered: false, StatusCode: null, Error: 'connection refused' });
  });
});

describe('GET /api/notifications', () => {
  it('400 without a payment, 404 for a payment without notifications or not the partner’s', async () => {
    const none = await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/notifications' });
    await expectDocumented(ctx.app, 'GET', '/api/notifications', none);
    expect(none.statusCode).toBe(400);
    // Named as the query spells them, not as body fields are.
    expect(none.json()).toEqual([{ ErrorCode: 4000, Message: "Send 'paymentId' or 'paymentExternalId'.", LoggerMessage: 'paymentId: rule 4000' }]);
    const missing = await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/notifications?paymentId=999999' });
    await expectDocumented(ctx.app, 'GET', '/api/notifications', missing);
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/problem\+json/);
  });
});

describe('POST /api/notificationRedeliver and /api/notificationSecret', () => {
  it('redelivers a delivered notification; 404 for ids not the partner’s', async () => {
    await put(ctx, [item()]);
    const paid = await makePayment(ctx);
    await ctx.services.notificationWorker.deliverDue();
    const [n] = (await ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/notifications?paymentId=${paid.PaymentId}` })).json();
    const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/notificationRedeliver', payload: { NotificationIds: [n.NotificationId] } });
    await expectDocumented(ctx.app, 'POST', '/api/notificationRedeliver', res);
    expect(res.json()).toMatchObject({ Redelivered: [{ NotificationId: n.NotificationId, Status: 'Pending', RetryCount: 0 }], NotRedelivered: [] });
    const theirs = await ctx.as(ctx.forProfit, { method: 'POST', url: '/api/notificationRedeliver', payload: { NotificationIds: [n.NotificationId] } });
    expect(theirs.statusCode).toBe(404);
  });

  it('rotation answers the new secret once; both secrets sign during the grace period', async () => {
    const first = (await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/notificationSecret' })).json();
    const second = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/notificationSecret' });
    await expectDocumented(ctx.app, 'POST', '/api/notificationSecret', second);
    expect(second.json()).toMatchObject({ SigningSecret: expect.stringMatching(/^whsec_/), PreviousSecretExpiresDate: expect.any(String) });
    const info = await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/notificationSecret' });
    await expectDocumented(ctx.app, 'GET', '/api/notificationSecret', info);
    expect(info.json().SigningSecret).toBeUndefined();
    expect(info.body).not.toContain(second.json().SigningSecret);
    await makePayment(ctx);
    await ctx.services.notificationWorker.deliverDue();
    const got = receiver.received.at(-1)!;
    expect(verifySignature(got.headers['payments-signature'] as string, got.body, second.json().SigningSecret)).toBe(true);
    expect(verifySignature(got.headers['payments-signature'] as string, got.body, first.SigningSecret)).toBe(true);
    expect(verifySignature(got.headers['payments-signature'] as string, got.body, 'whsec_wrong')).toBe(false);
    const none = await ctx.as(ctx.forProfit, { method: 'GET', url: '/api/notificationSecret' });
    expect(none.statusCode).toBe(404);
  });

  it('no secret in any log line: signing secret, AccessToken, card number', async () => {
    const secrets = (await ctx.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM notification_secrets'))[0];
    expect(Number(secrets!.n)).toBeGreaterThan(0);
    const log = ctx.logs.join('');
    expect(log).not.toContain(ACCESS_TOKEN);
    expect(log).not.toMatch(/whsec_[A-Za-z0-9_-]{10}/);
    expect(log).not.toContain('4242424242424242');
  });
});
