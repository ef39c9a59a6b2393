import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { type AddressInfo, connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { FORM_TOKEN_CLOCK_SKEW_MS, FormTokens } from '../../../src/http/paypage/csrf.ts';
import { payLinkRef } from '../../../src/modules/paylinks/paylink-service.ts';
import { FormTokenKey } from '../../../src/modules/vault/form-token-key.ts';
import { vaultFromConfig } from '../../../src/modules/vault/vault.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { ACH, CARD, createLink, csrfOf, openPage, redirectQuery, submit } from './paylink-helpers.ts';

/** The page against requests no browser of the page sends: other body types, control characters, prototype names. */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { payLinkSubmitLimitPerLink: 1000, payLinkSubmitLimitPerIp: 1000 } });
});
afterAll(() => ctx.close());

const post = async (id: string, payload: string, contentType?: string) =>
  ctx.app.inject({
    method: 'POST',
    url: `/paylink/${id}`,
    headers: { 'sec-fetch-site': 'same-origin', ...(contentType ? { 'content-type': contentType } : {}) },
    payload,
  });

describe('the form body', () => {
  it('must be urlencoded: JSON, text or no body is refused with a 415 page before it is read', async () => {
    const { id } = await createLink(ctx);
    const csrf = csrfOf((await openPage(ctx, id)).html);
    for (const [payload, type] of [
      [JSON.stringify({ CsrfToken: csrf, Action: 'pay', ...CARD }), 'application/json'],
      [JSON.stringify({ CsrfToken: csrf }), 'application/json; charset=utf-8'],
      ['{"CsrfToken": ', 'application/json'],
      [`CsrfToken=${encodeURIComponent(csrf)}`, 'text/plain'],
      ['', undefined],
    ] as const) {
      const res = await post(id, payload, type);
      expect(res.statusCode, `${type}`).toBe(415);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers.accept).toBe('application/x-www-form-urlencoded');
      expect(res.body).toContain('The form could not be read.');
    }
    // A browser's own form, with or without a charset, is read as before.
    const form = new URLSearchParams({ CsrfToken: csrf, Action: 'pay', ...CARD }).toString();
    expect(redirectQuery(await post(id, form, 'application/x-www-form-urlencoded; charset=UTF-8')).get('Successful')).toBe('true');
  });

  it('is UTF-8: bytes or percent-escapes that are not are refused with a 400 page, and nothing is paid', async () => {
    const { id } = await createLink(ctx);
    const csrf = csrfOf((await openPage(ctx, id)).html);
    const fields = new URLSearchParams({ CsrfToken: csrf, Action: 'pay', ...CARD }).toString();
    const form = 'application/x-www-form-urlencoded';
    // "José" in Latin-1, escaped and raw: decoded the usual way it became "Jos\uFFFD".
    for (const payload of [Buffer.from(`${fields}&FirstName=Jos%E9`), Buffer.concat([Buffer.from(`${fields}&FirstName=Jos`), Buffer.from([0xe9])])]) {
      const res = await ctx.app.inject({ method: 'POST', url: `/paylink/${id}`, headers: { 'sec-fetch-site': 'same-origin', 'content-type': form }, payload });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('The form could not be read.');
    }
    const [{ n }] = await ctx.store.sql.query<{ n: number | string }>('SELECT count(*) AS n FROM payments WHERE pay_link_id = $1', [id]);
    expect(Number(n)).toBe(0);
    // In UTF-8 it is paid, and stored as sent.
    const query = redirectQuery(await post(id, `${fields}&FirstName=Jos%C3%A9`, form));
    const [row] = await ctx.store.sql.query<{ first_name: string }>('SELECT first_name FROM payments WHERE id = $1', [query.get('PaymentGuid')]);
    expect(row?.first_name).toBe('José');
  });

  it('loses its control characters: a NUL in a field is no 500', async () => {
    const { id } = await createLink(ctx);
    const res = await submit(ctx, id, { ...CARD, FirstName: 'A\u0000da', LastName: 'Love\u0001lace\u007f', City: '\u0000', Street: '1 Main\u009b St' });
    const query = redirectQuery(res);
    const [row] = await ctx.store.sql.query<Record<string, string | null>>('SELECT first_name, last_name, city, street FROM payments WHERE id = $1', [query.get('PaymentGuid')]);
    expect(row).toEqual({ first_name: 'Ada', last_name: 'Lovelace', city: null, street: '1 Main St' });
  });

  it('gives the field errors page, not a 500, for a control character in a refused form', async () => {
    const { id } = await createLink(ctx);
    const res = await submit(ctx, id, { ...CARD, Email: 'x\u0000', CardNum: '\u0000' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('value="x"');
  });

  it('takes prototype names as plain values: an account type "constructor" is a refused field', async () => {
    const { id } = await createLink(ctx);
    for (const [field, value] of [['CheckAccountTypeId', 'constructor'], ['CheckTypeId', 'toString']]) {
      const res = await submit(ctx, id, { ...ACH, [field]: value });
      expect(res.statusCode, field).toBe(422);
      expect(res.body).toContain(`id="pl-${field}-error">Choose an account type.`);
    }
  });
});

describe('a link whose Language is a prototype name', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('is shown in English (%s)', async (language) => {
    const { id } = await createLink(ctx, ctx.nonProfit, { Language: language });
    for (let i = 0; i < 2; i++) {
      const { res, html } = await openPage(ctx, id);
      expect(res.statusCode).toBe(200);
      expect(html).toContain('<html lang="en"');
    }
    redirectQuery(await submit(ctx, id, CARD));
    expect((await openPage(ctx, id)).res.statusCode).toBe(200);
  });
});

describe('the logs', () => {
  it("name a link by a short hash of its id, never by the id (the page's only key)", async () => {
    const { id } = await createLink(ctx);
    const from = ctx.logs.length;
    expect((await submit(ctx, id, CARD, { csrf: 'v1:abc:def:ghi' })).statusCode).toBe(403);
    const lines = ctx.logs.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>);
    const refused = lines.find((l) => l.msg === 'pay page form refused: form token or origin');
    expect(refused).toMatchObject({ payLinkRef: payLinkRef(id) });
    expect(payLinkRef(id)).toMatch(/^#[A-Za-z0-9_-]{10}$/);
    // The same fingerprint stands for the id in the request lines' URLs: one link's lines match.
    expect(lines.some((l) => (l.req as { url?: string } | undefined)?.url === `/paylink/${payLinkRef(id)}`)).toBe(true);
    for (const line of lines) expect(JSON.stringify(line)).not.toContain(id);
  });
});

describe('a form post cut off halfway (tab closed, network lost)', () => {
  it('is logged as a refused request, not as a database outage', async () => {
    const { id } = await createLink(ctx);
    await ctx.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => {});
    const { port } = ctx.app.server.address() as AddressInfo;
    const from = ctx.logs.length;
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /paylink/${id} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nCsrfToken=abc`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    const lines = () => ctx.logs.slice(from).map((l) => JSON.parse(l) as { msg: string; code?: string });
    for (let waited = 0; waited < 5_000 && !lines().some((l) => l.msg === 'pay page request refused'); waited += 50) await new Promise((r) => setTimeout(r, 50));
    // The body's read fails with ECONNRESET: a database error's code too, which the page took for one.
    expect(lines()).toContainEqual(expect.objectContaining({ msg: 'pay page request refused', code: 'ECONNRESET' }));
    expect(lines().filter((l) => /database/.test(l.msg))).toEqual([]);
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect(lines().filter((l) => /database/.test(l.msg))).toEqual([]);
  });
});

describe('the form token on a fresh install', () => {
  it('is refused, not a 500, while the file vault has no key file yet', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paypage-vault-'));
    try {
      const tokens = new FormTokens(new FormTokenKey(vaultFromConfig({ dataDir }, new ManualClock()), new ManualClock()), new ManualClock());
      const id = 'A'.repeat(24);
      expect(tokens.verify(id, 'v1:abc:def:ghi')).toBe(false);
      // The first page served creates the key file; its own token is then good.
      const issued = tokens.issue(id);
      expect(tokens.verify(id, issued)).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the form token across clocks', () => {
  it('is good on a server whose clock is up to ten minutes behind the one that served the page, no more', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paypage-vault-'));
    try {
      const key = new FormTokenKey(vaultFromConfig({ dataDir }, new ManualClock()), new ManualClock());
      const served = new ManualClock('2026-11-21T12:00:00Z');
      const id = 'B'.repeat(24);
      const issued = new FormTokens(key, served).issue(id);
      const behind = (minutes: number) => new FormTokens(key, new ManualClock(new Date(served.now().getTime() - minutes * 60_000)));
      expect(behind(2).verify(id, issued)).toBe(true);
      expect(behind(FORM_TOKEN_CLOCK_SKEW_MS / 60_000).verify(id, issued)).toBe(true);
      expect(behind(11).verify(id, issued)).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
