import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { PATH, createGatewayUser, envelope11, resultOf } from './gateway-helpers.ts';

// Logins verify a scrypt hash at PASSWORD_PARAMS (128 MiB, a few hundred ms; seconds on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

let dir: string;
let cert: string;
let key: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'payments-tls-'));
  key = join(dir, 'key.pem');
  cert = join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
    '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ], { stdio: 'ignore' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fetchHttps(port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, method, path, ca: readFileSync(cert), servername: 'localhost', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('TLS terminated by the service (TLS_CERT_FILE, TLS_KEY_FILE) with NODE_ENV=production', () => {
  let ctx: TestContext;
  let port: number;
  beforeAll(async () => {
    ctx = await createTestContext({ config: { tlsCertFile: cert, tlsKeyFile: key, nodeEnv: 'production' } });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as { port: number }).port;
  });
  afterAll(() => ctx.close());

  it('serves the gateway over HTTPS, verified against the certificate, with an https address in the WSDL', async () => {
    const wsdl = await fetchHttps(port, 'GET', `${PATH}?WSDL`);
    expect(wsdl.status).toBe(200);
    expect(wsdl.body).toContain(`<soap:address location="https://127.0.0.1:${port}${PATH}" />`);
    const user = await createGatewayUser(ctx, ctx.nonProfit, 'tls-user');
    const res = await fetchHttps(port, 'POST', PATH, envelope11('GetClientSessionID', { Username: user.Username, Password: user.Password }), { 'content-type': 'text/xml' });
    expect(res.status).toBe(200);
    expect(resultOf(res.body).code).toBe('OK');
  });

  it('does not speak plain HTTP on that port', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'GET', path: PATH }, (res) => resolve(`status ${res.statusCode}`));
      req.on('error', (err) => resolve(`error ${(err as NodeJS.ErrnoException).code ?? err.message}`));
      req.end();
    });
    expect(outcome).not.toBe('status 200');
  });
});

describe('NODE_ENV=production behind a proxy', () => {
  it('refuses plain HTTP, and ignores X-Forwarded-Proto from a proxy it does not trust', async () => {
    const ctx = await createTestContext({ config: { nodeEnv: 'production', trustProxy: false } });
    try {
      for (const headers of [{}, { 'x-forwarded-proto': 'https' }]) {
        const res = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml', ...headers }, payload: envelope11('GetToken', {}) });
        expect(res.statusCode).toBe(403);
        expect(res.body).toContain('HTTPS is required');
        expect((await ctx.app.inject({ method: 'GET', url: `${PATH}?WSDL`, headers })).statusCode).toBe(403);
      }
      // Surface A is not the gateway: its transport rules are its own.
      expect((await ctx.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await ctx.close();
    }
  });

  it('accepts a request a trusted proxy (TRUST_PROXY) says came over HTTPS', async () => {
    const ctx = await createTestContext({ config: { nodeEnv: 'production', trustProxy: true } });
    try {
      const https = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml', 'x-forwarded-proto': 'https' }, payload: envelope11('GetToken', {}) });
      expect(https.statusCode).toBe(200);
      expect(resultOf(https).code).toBe('Access_Denied');
      const http = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml', 'x-forwarded-proto': 'http' }, payload: envelope11('GetToken', {}) });
      expect(http.statusCode).toBe(403);
      const wsdl = await ctx.app.inject({ method: 'GET', url: `${PATH}?wsdl`, headers: { 'x-forwarded-proto': 'https', host: 'pay.example.org' } });
      expect(wsdl.body).toContain('location="https://pay.example.org/admin/ws/recurring.asmx"');
    } finally {
      await ctx.close();
    }
  });
});

describe('configuration', () => {
  it('reads GATEWAY_SESSION_TTL (minutes, default 20), SOAP_NAMESPACE and the TLS pair', () => {
    expect(loadConfig({}).gatewaySessionTtlMs).toBe(20 * 60_000);
    expect(loadConfig({ GATEWAY_SESSION_TTL: '5' }).gatewaySessionTtlMs).toBe(5 * 60_000);
    expect(() => loadConfig({ GATEWAY_SESSION_TTL: '0' })).toThrow(ConfigError);
    expect(loadConfig({}).soapNamespace).toBe('http://www.tpisoft.com/Admin/ws');
    expect(loadConfig({ SOAP_NAMESPACE: ' urn:example:gateway/ ' }).soapNamespace).toBe('urn:example:gateway/');
    expect(() => loadConfig({ TLS_CERT_FILE: cert })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE go together/);
    expect(loadConfig({ TLS_CERT_FILE: cert, TLS_KEY_FILE: key, PORT: '8443' }).publicBaseUrl).toBe('https://localhost:8443');
  });

  it('serves another namespace and session lifetime when configured', async () => {
    const ns = 'urn:example:gateway';
    const ctx = await createTestContext({ config: { soapNamespace: ns, gatewaySessionTtlMs: 5 * 60_000 } });
    try {
      const user = await createGatewayUser(ctx, ctx.nonProfit, 'ns-user');
      const wsdl = await ctx.app.inject({ method: 'GET', url: `${PATH}?WSDL` });
      expect(wsdl.body).toContain(`targetNamespace="${ns}"`);
      expect(wsdl.body).toContain(`soapAction="${ns}/GetToken"`);
      const login = await ctx.app.inject({
        method: 'POST',
        url: PATH,
        headers: { 'content-type': 'text/xml', SOAPAction: `${ns}/GetClientSessionID` },
        payload: envelope11('GetClientSessionID', { Username: user.Username, Password: user.Password }, ns),
      });
      expect(login.body).toContain(`<GetClientSessionIDResponse xmlns="${ns}">`);
      const sid = resultOf(login).ClientSessionID!;
      const token = () =>
        ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml' }, payload: envelope11('GetToken', { ClientSessionID: sid, CcAccountNum: '4242424242424242', CcExpDate: '1230' }, ns) });
      expect(resultOf(await token()).code).toBe('OK');
      ctx.clock.advance(5 * 60_000);
      expect(resultOf(await token()).code).toBe('Access_Denied');
      const oldNs = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml' }, payload: envelope11('GetToken', { ClientSessionID: sid }) });
      expect(oldNs.statusCode).toBe(500);
    } finally {
      await ctx.close();
    }
  });

  it('keeps a namespace with a trailing slash exactly, with SOAPActions as ASP.NET writes them', async () => {
    const ns = 'http://tempuri.org/';
    const ctx = await createTestContext({ config: { soapNamespace: ns } });
    try {
      const user = await createGatewayUser(ctx, ctx.nonProfit, 'slash-user');
      const wsdl = await ctx.app.inject({ method: 'GET', url: `${PATH}?WSDL` });
      expect(wsdl.body).toContain('targetNamespace="http://tempuri.org/"');
      expect(wsdl.body).toContain('soapAction="http://tempuri.org/GetToken"');
      const login = await ctx.app.inject({
        method: 'POST',
        url: PATH,
        headers: { 'content-type': 'text/xml', SOAPAction: '"http://tempuri.org/GetClientSessionID"' },
        payload: envelope11('GetClientSessionID', { Username: user.Username, Password: user.Password }, ns),
      });
      expect(login.body).toContain('<GetClientSessionIDResponse xmlns="http://tempuri.org/">');
      const sid = resultOf(login).ClientSessionID!;
      // A body written without the slash is the same namespace on input.
      const token = await ctx.app.inject({
        method: 'POST',
        url: PATH,
        headers: { 'content-type': 'text/xml', SOAPAction: 'http://tempuri.org/GetToken' },
        payload: envelope11('GetToken', { ClientSessionID: sid, CcAccountNum: '4242424242424242', CcExpDate: '1230' }, 'http://tempuri.org'),
      });
      expect(resultOf(token).code).toBe('OK');
      expect(token.body).toContain('<GetTokenResponse xmlns="http://tempuri.org/">');
    } finally {
      await ctx.close();
    }
  });
});
