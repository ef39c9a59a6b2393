import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { type GatewayLogin, NS, PATH, SOAP11, createGatewayUser, envelope11, resultOf } from './gateway-helpers.ts';

// Logins verify a scrypt hash at PASSWORD_PARAMS (128 MiB, a few hundred ms; seconds on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

/**
 * Hostile requests: XXE, entity expansion, oversized bodies, deep nesting, unknown operations.
 * None of them may reach an operation: each test sends a GetClientSessionID with valid
 * credentials inside the hostile document and checks that no session was created.
 */
let ctx: TestContext;
let user: GatewayLogin;

beforeAll(async () => {
  ctx = await createTestContext();
  user = await createGatewayUser(ctx, ctx.nonProfit, 'security-user');
});
afterAll(() => ctx.close());

async function sessionCount(): Promise<number> {
  const [row] = await ctx.store.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM gateway_sessions');
  return Number(row!.n);
}

const loginBody = () => `<GetClientSessionID xmlns="${NS}"><Username>${user.Username}</Username><Password>${user.Password}</Password></GetClientSessionID>`;
const post = (payload: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml; charset=utf-8', SOAPAction: `${NS}/GetClientSessionID`, ...headers }, payload });

describe('refused before any operation runs', () => {
  it('a document with an external entity pointing at a local file (XXE): 400, never expanded', async () => {
    const before = await sessionCount();
    const payload =
      `<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` +
      `<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body><GetClientSessionID xmlns="${NS}"><Username>&xxe;</Username><Password>${user.Password}</Password></GetClientSessionID></soap:Body></soap:Envelope>`;
    const res = await post(payload);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<faultcode>soap:Client</faultcode>');
    expect(res.body).toContain('DTDs and entity declarations are not allowed.');
    expect(res.body).not.toMatch(/root:|nologin/);
    expect(await sessionCount()).toBe(before);
  });

  it('a billion-laughs document: 400 at once', async () => {
    const before = await sessionCount();
    const lol = ['<!ENTITY lol "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`)].join('');
    const payload = `<?xml version="1.0"?><!DOCTYPE lolz [${lol}]><soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>${loginBody().replace(user.Username, '&lol9;')}</soap:Body></soap:Envelope>`;
    const res = await post(payload);
    expect(res.statusCode).toBe(400);
    expect(res.body.length).toBeLessThan(1000);
    expect(await sessionCount()).toBe(before);
  });

  it('a DOCTYPE of any kind, in any case, even without entities; and an entity reference without a declaration', async () => {
    for (const payload of [
      `<!doctype Envelope><soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>${loginBody()}</soap:Body></soap:Envelope>`,
      `<?xml version="1.0"?><!DOCTYPE x SYSTEM "http://127.0.0.1:1/evil.dtd"><soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>${loginBody()}</soap:Body></soap:Envelope>`,
      `<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>${loginBody().replace(user.Username, '&ent;')}</soap:Body></soap:Envelope>`,
    ]) {
      const res = await post(payload);
      expect(res.statusCode).toBe(400);
    }
  });

  it('a 10 MB body: 413, with a SOAP fault for SOAP and plain text for a form post', async () => {
    const before = await sessionCount();
    const padding = 'x'.repeat(10 * 1024 * 1024);
    const soap = await post(`<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>${loginBody()}<!-- ${padding} --></soap:Body></soap:Envelope>`);
    expect(soap.statusCode).toBe(413);
    expect(soap.body).toContain('The request body is larger than the limit of 64 KiB.');
    const form = await ctx.app.inject({
      method: 'POST',
      url: `${PATH}/GetClientSessionID`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `Username=${user.Username}&Password=${user.Password}&pad=${padding}`,
    });
    expect(form.statusCode).toBe(413);
    expect(form.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(await sessionCount()).toBe(before);
  });

  it('a 10 MB body streamed without a Content-Length over a real socket: 413 once 64 KiB have arrived', async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = ctx.app.server.address() as { port: number };
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: PATH, headers: { 'content-type': 'text/xml', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', (err) => (/EPIPE|ECONNRESET/.test(String(err)) ? undefined : reject(err)));
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (sent < 160 && req.write(chunk)) sent++;
        if (sent < 160) req.once('drain', pump);
        else req.end();
      };
      req.write(`<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body><!--`);
      pump();
    });
    expect(status).toBe(413);
  });

  it('nesting deeper than the limit: 400', async () => {
    const before = await sessionCount();
    const deep = '<a>'.repeat(100) + '</a>'.repeat(100);
    const res = await post(`<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body><GetClientSessionID xmlns="${NS}"><Username>${user.Username}</Username><Password>${user.Password}</Password><Vendor>${deep}</Vendor></GetClientSessionID></soap:Body></soap:Envelope>`);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('nests elements deeper than 16 levels');
    expect(await sessionCount()).toBe(before);
    // The same request at a normal depth works: the limit is not in the way of real clients.
    const ok = await post(`<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>${loginBody()}</soap:Body></soap:Envelope>`);
    expect(resultOf(ok).code).toBe('OK');
    expect(await sessionCount()).toBe(before + 1);
  });

  it('malformed XML: 400 with a fault that quotes nothing of the body', async () => {
    const res = await post(`<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body><GetToken xmlns="${NS}"><CcAccountNum>4242424242424242</CcAccountNum></soap:Body>`);
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toContain('4242424242424242');
    for (const bad of ['', 'not xml at all', `<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>&</soap:Body></soap:Envelope>`, '<a></a><b></b>']) {
      expect((await post(bad)).statusCode, bad).toBe(400);
    }
  });

  it('a SOAPAction for an unknown operation: 500 soap:Client fault, nothing run', async () => {
    const before = await sessionCount();
    const res = await post(envelope11('GetClientSessionID', { Username: user.Username, Password: user.Password }), { SOAPAction: `"${NS}/DropAllTokens"` });
    expect(res.statusCode).toBe(500);
    expect(res.body).toContain('<faultcode>soap:Client</faultcode>');
    expect(await sessionCount()).toBe(before);
  });

  it('other content types: 415', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(res.statusCode).toBe(415);
  });

  it('a type that only begins like a SOAP one (text/xmlfoo): 415 in plain text, not a SOAP fault', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xmlfoo' }, payload: '<x/>' });
    expect(res.statusCode).toBe(415);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });
});

describe('text that is not UTF-8, and no body at all (a robustness audit)', () => {
  it('a SOAP body with a byte that is not UTF-8: 400 Client fault, no session (it was read as U+FFFD)', async () => {
    const before = await sessionCount();
    const envelope = `<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>${loginBody().replace('</Username>', '\u00e9</Username>')}</soap:Body></soap:Envelope>`;
    const latin1 = Buffer.from(envelope, 'latin1');
    const res = await post(latin1 as unknown as string, { 'content-type': 'text/xml; charset=iso-8859-1' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<faultstring>The request body is not UTF-8 text.</faultstring>');
    expect(await sessionCount()).toBe(before);
  });

  it('a form post whose percent-escaped value is not UTF-8: 400 in plain text; valid escapes still read', async () => {
    const form = (body: string) => ctx.app.inject({ method: 'POST', url: `${PATH}/GetClientSessionID`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
    const bad = await form(`Username=${user.Username}%E9&Password=${encodeURIComponent(user.Password)}`);
    expect([bad.statusCode, bad.headers['content-type'], bad.body]).toEqual([400, 'text/plain; charset=utf-8', 'The request body is not UTF-8 text.']);
    const ok = await form(`Username=${encodeURIComponent(user.Username)}&Password=${encodeURIComponent(user.Password)}&ClientIP=%31%32%37.0.0.1+`);
    expect(resultOf(ok).code).toBe('OK');
  });

  it('a POST with neither body nor Content-Type: 415 in plain text, not a 500', async () => {
    for (const url of [PATH, `${PATH}?WSDL`]) {
      const res = await ctx.app.inject({ method: 'POST', url });
      expect([res.statusCode, res.headers['content-type']], url).toEqual([415, 'text/plain; charset=utf-8']);
      expect(res.body).toMatch(/^Send text\/xml/);
    }
  });
});

describe('GetClientSessionID attempts are limited per address', () => {
  it('answers Access_Denied once the per-minute limit is spent, and again after a minute', async () => {
    // GATEWAY_LOGIN_RATE_LIMIT (and SESSION_RATE_LIMIT, which the gateway shared before it had its own).
    const limited = await createTestContext({ config: { gatewayLoginRateLimitPerMinute: 3, sessionRateLimitPerMinute: 3 } });
    try {
      const u = await createGatewayUser(limited, limited.nonProfit, 'limited-user');
      const attempt = async () =>
        resultOf(
          await limited.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml' }, payload: envelope11('GetClientSessionID', { Username: u.Username, Password: 'wrong-password' }) }),
        ).code;
      expect([await attempt(), await attempt(), await attempt()]).toEqual(['Invalid_Login', 'Invalid_Login', 'Invalid_Login']);
      expect(await attempt()).toBe('Access_Denied');
      limited.clock.advance(60_000);
      expect(await attempt()).toBe('Invalid_Login');
    } finally {
      await limited.close();
    }
  }, 180_000);
});
