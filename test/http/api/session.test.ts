import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256, verifySecret } from '../../../src/platform/secrets.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({
    // A probe route that needs authentication and reports whose token it saw.
    extraApiRoutes: (api) => api.get('/probe/whoami', async (request) => ({ ClientId: request.partner.id })),
  });
});
afterAll(() => ctx.close());

const session = (payload: unknown, contentType = 'application/json') =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/ClientSession',
    headers: { 'content-type': contentType },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('POST /api/ClientSession', () => {
  it('issues a token that expires exactly 5 hours after issue', async () => {
    const issuedAt = ctx.clock.now().getTime();
    const res = await session({ ClientId: ctx.nonProfit.ClientId, ClientSecret: ctx.nonProfit.ClientSecret });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.ClientId).toBe(ctx.nonProfit.ClientId);
    expect(body.Token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.ExpirationDate).toBe(new Date(issuedAt + 5 * 3600_000).toISOString());
    await expectDocumented(ctx.app, 'POST', '/api/ClientSession', res);
  });

  it('answers a wrong secret and an unknown client with the same single BrokenRule', async () => {
    const wrong = await session({ ClientId: ctx.nonProfit.ClientId, ClientSecret: 'not-the-secret' });
    const unknown = await session({ ClientId: '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a', ClientSecret: 'whatever' });
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual([{ ErrorCode: 1100, Message: 'The ClientId and ClientSecret do not authenticate.', LoggerMessage: 'rule 1100' }]);
      await expectDocumented(ctx.app, 'POST', '/api/ClientSession', res);
    }
  });

  it('refuses a ClientSecret of 501 characters and accepts 500', async () => {
    const long = await session({ ClientId: ctx.nonProfit.ClientId, ClientSecret: 'x'.repeat(501) });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toEqual([expect.objectContaining({ ErrorCode: 1002, Message: "'ClientSecret' must be at most 500 characters." })]);
    const max = await session({ ClientId: ctx.nonProfit.ClientId, ClientSecret: 'x'.repeat(500) });
    expect(max.json()[0].ErrorCode).toBe(1100);
  });

  it('names each missing field', async () => {
    const res = await session({});
    expect(res.statusCode).toBe(400);
    const messages = res.json().map((r: { Message: string }) => r.Message);
    expect(messages).toEqual(expect.arrayContaining(["'ClientId' is required.", "'ClientSecret' is required."]));
    expect(res.json()).toHaveLength(2);
    await expectDocumented(ctx.app, 'POST', '/api/ClientSession', res);
  });

  it('treats null like a missing field', async () => {
    const res = await session({ ClientId: null, ClientSecret: 'x' });
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 1001, Message: "'ClientId' is required." })]);
  });

  it('refuses a ClientId that is not a GUID', async () => {
    const res = await session({ ClientId: 'partner-1', ClientSecret: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 1003, Message: "'ClientId' must be a GUID." })]);
  });

  it('answers malformed JSON with a BrokenRule that does not echo the body', async () => {
    const res = await session('{"ClientId": "abc", "ClientSecret": "s3cr3t-in-broken-json"', 'application/json');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([{ ErrorCode: 1000, Message: 'The request body is not valid JSON.', LoggerMessage: 'body: rule 1000' }]);
    expect(res.body).not.toContain('s3cr3t');
  });

  it('answers a JSON value that is not an object with a BrokenRule', async () => {
    const res = await session('[1,2]');
    expect(res.statusCode).toBe(400);
    expect(res.json()[0].ErrorCode).toBe(1004);
  });

  it.each([
    'application/json-patch+json',
    'application/json',
    'text/json',
    'application/vnd.partner+json',
    'application/json; charset=utf-8',
    'application/json-patch+json; charset=utf-8',
    'text/json; charset=utf-8',
    'application/vnd.partner+json;charset=UTF-8',
  ])(
    'accepts %s',
    async (type) => {
      const res = await session({ ClientId: ctx.forProfit.ClientId, ClientSecret: ctx.forProfit.ClientSecret }, type);
      expect(res.statusCode).toBe(200);
    },
  );

  it('refuses other content types with 415 problem details', async () => {
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const res = await session('ClientId=x', type);
      expect(res.statusCode).toBe(415);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 415, title: 'Unsupported Media Type' });
    }
  });

  it('binds property names case-insensitively and ignores unknown properties', async () => {
    const res = await session({ clientid: ctx.nonProfit.ClientId, CLIENTSECRET: ctx.nonProfit.ClientSecret, Extra: 1 });
    expect(res.statusCode).toBe(200);
    const path = await ctx.app.inject({
      method: 'POST',
      url: '/api/clientsession',
      headers: { 'content-type': 'application/json' },
      payload: { clientId: ctx.nonProfit.ClientId, clientSecret: ctx.nonProfit.ClientSecret },
    });
    expect(path.statusCode).toBe(200);
  });

  it('refuses a body over 1 MiB with 413 problem details', async () => {
    const res = await session({ ClientId: ctx.nonProfit.ClientId, ClientSecret: 'x', Padding: 'p'.repeat(1024 * 1024) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ status: 413, traceId: res.headers['x-request-id'] });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/ClientSession' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json()).toMatchObject({ status: 405, title: 'Method Not Allowed' });
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const given = await ctx.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const hostile = await ctx.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': '<script>' } });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('AccessToken', () => {
  const whoami = (token?: string) =>
    ctx.app.inject({ method: 'GET', url: '/api/probe/whoami', headers: token === undefined ? {} : { AccessToken: token } });

  it('is required: missing or unknown gives 401 problem details', async () => {
    for (const res of [await whoami(), await whoami('not-a-token-of-anyone-at-all-0123456789')]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toEqual({
        type: 'https://tools.ietf.org/html/rfc9110#section-15.5.2',
        title: 'Unauthorized',
        status: 401,
        detail: 'The AccessToken header is missing, unknown or expired.',
        traceId: res.headers['x-request-id'],
      });
    }
  });

  it('is accepted any number of times until it expires: at 4 h 59 min yes, at 5 h 01 min no', async () => {
    const token = await ctx.token(ctx.nonProfit);
    const start = ctx.clock.now().getTime();
    try {
      for (let i = 0; i < 3; i++) expect((await whoami(token)).json()).toEqual({ ClientId: ctx.nonProfit.ClientId });
      ctx.clock.set(new Date(start + (4 * 60 + 59) * 60_000));
      expect((await whoami(token)).statusCode).toBe(200);
      ctx.clock.set(new Date(start + (5 * 60 + 1) * 60_000));
      expect((await whoami(token)).statusCode).toBe(401);
    } finally {
      ctx.clock.set(new Date(start));
    }
  });

  it("acts for the token's own partner only", async () => {
    const a = await ctx.token(ctx.nonProfit);
    const b = await ctx.token(ctx.forProfit);
    expect((await whoami(a)).json().ClientId).toBe(ctx.nonProfit.ClientId);
    expect((await whoami(b)).json().ClientId).toBe(ctx.forProfit.ClientId);
  });

  it('stops working when the partner secret is rotated', async () => {
    const extra = await ctx.services.partners.createPartner({ name: 'Rotating', kind: 'non-profit' });
    const token = (await ctx.services.sessions.createSession(extra.clientId, extra.clientSecret)).token;
    expect((await whoami(token)).statusCode).toBe(200);
    await ctx.services.partners.rotateSecret(extra.clientId);
    expect((await whoami(token)).statusCode).toBe(401);
    const old = await session({ ClientId: extra.clientId, ClientSecret: extra.clientSecret });
    expect(old.statusCode).toBe(400);
  });

  it('is stored only as a hash', async () => {
    const token = await ctx.token(ctx.nonProfit);
    const rows = await ctx.store.sql.query<{ token_hash: string }>('SELECT token_hash FROM access_tokens');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.token_hash === token)).toBe(false);
  });

  it('is stored as SHA-256, like API keys; client secrets and gateway passwords as scrypt, by their parameters', async () => {
    const extra = await ctx.services.partners.createPartner({ name: 'Hashes', kind: 'non-profit' });
    const token = (await ctx.services.sessions.createSession(extra.clientId, extra.clientSecret)).token;
    const tokens = await ctx.store.sql.query('SELECT 1 FROM access_tokens WHERE token_hash = $1', [sha256(token)]);
    expect(tokens).toHaveLength(1);
    const [partner] = await ctx.store.sql.query<{ client_secret_hash: string; api_key_hash: string }>(
      'SELECT client_secret_hash, api_key_hash FROM partners WHERE id = $1',
      [extra.clientId],
    );
    expect(partner!.api_key_hash).toBe(sha256(extra.apiKey));
    expect(partner!.client_secret_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(partner!.client_secret_hash).not.toContain(extra.clientSecret);
    const user = await ctx.services.gatewayUsers.create({ partnerId: extra.clientId, username: 'hashes-user', vendor: 'Hashes' });
    const [stored] = await ctx.store.sql.query<{ password_hash: string }>('SELECT password_hash FROM gateway_users WHERE id = $1', [user.id]);
    expect(stored!.password_hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(await verifySecret(user.password, stored!.password_hash)).toBe(true);
    // An unknown account is checked against a decoy hash (the same scrypt work), and never matches.
    expect(await verifySecret(extra.clientSecret, undefined)).toBe(false);
  });
});

describe('logging', () => {
  it('never writes a secret sent in a request', async () => {
    const secret = 'SuperSecretValue-' + 'q'.repeat(20);
    await session({ ClientId: ctx.nonProfit.ClientId, ClientSecret: secret });
    await session(`{"ClientId":"${ctx.nonProfit.ClientId}","ClientSecret":"${secret}"`);
    await ctx.app.inject({ method: 'GET', url: `/api/probe/whoami?AccessToken=${secret}`, headers: { AccessToken: secret } });
    const good = await session({ ClientId: ctx.nonProfit.ClientId, ClientSecret: ctx.nonProfit.ClientSecret });
    await ctx.app.inject({ method: 'GET', url: '/api/probe/whoami', headers: { AccessToken: good.json().Token } });
    const all = ctx.logs.join('');
    expect(all.length).toBeGreaterThan(0);
    expect(all).toContain('/api/ClientSession');
    expect(all).not.toContain(secret);
    expect(all).not.toContain(ctx.nonProfit.ClientSecret);
    expect(all).not.toContain(good.json().Token);
  });
});

describe('documents', () => {
  it('serves the OpenAPI document and a local docs page', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'The Payment API', version: 'v1' });
    // Public: it needs nothing (an empty requirement, not an absent one, which linters refuse).
    expect(doc.paths['/api/ClientSession'].post.security).toEqual([]);
    // A valid OpenAPI 3.1 document by the specification's own JSON schema: partners generate
    // clients from it, and generators refuse (or silently drop) what the schema does not allow.
    const validation = await new Validator().validate(doc);
    expect(validation.errors).toBeUndefined();
    expect(validation.valid).toBe(true);
    const docs = await ctx.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
  });

  it('answers health and readiness', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({ status: 'ready' });
  });
});
