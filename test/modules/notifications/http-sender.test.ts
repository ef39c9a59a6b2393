import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpSender } from '../../../src/modules/notifications/http-sender.ts';

// A real receiver: answers by path.
let server: Server;
let base: string;
let port: number;
const seen: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(5_000_000));
      } else if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 2_000).unref();
      } else if (req.url === '/moved') {
        res.writeHead(302, { location: '/ok' });
        res.end();
      } else {
        res.writeHead(req.url === '/fail' ? 500 : 204);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('HttpSender', () => {
  const allowing = () => new HttpSender({ policy: { allowHttp: true, allowPrivate: true }, timeoutMs: 500 });

  it('posts the body with its headers and reports the status', async () => {
    const sender = allowing();
    const result = await sender.post(`${base}/ok`, '{"a":1}', { 'Payments-Event-Id': 'e1' });
    expect(result).toMatchObject({ ok: true, statusCode: 204 });
    expect(seen.at(-1)).toMatchObject({ body: '{"a":1}', headers: { 'payments-event-id': 'e1', 'content-type': 'application/json; charset=utf-8' } });
    expect(await sender.post(`${base}/fail`, '{}', {})).toMatchObject({ ok: false, statusCode: 500 });
    sender.close();
  });

  it('takes the status of an answer of megabytes without reading it all, and follows no redirect', async () => {
    const sender = allowing();
    expect(await sender.post(`${base}/big`, '{}', {})).toMatchObject({ ok: true, statusCode: 200 });
    expect(await sender.post(`${base}/moved`, '{}', {})).toMatchObject({ ok: false, statusCode: 302 });
    expect(seen.at(-1)!.body).toBe('{}');
    sender.close();
  });

  it('says a timeout and a refused connection in words', async () => {
    const sender = allowing();
    expect(await sender.post(`${base}/slow`, '{}', {})).toMatchObject({ ok: false, statusCode: null, error: 'no answer within 500 ms' });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await sender.post(`http://127.0.0.1:${closedPort}/`, '{}', {})).toMatchObject({ ok: false, statusCode: null, error: 'connection refused' });
    sender.close();
  });

  it('refuses a host name that resolves to a private address at the connection', async () => {
    const sender = new HttpSender({ policy: { allowHttp: true, allowPrivate: false }, timeoutMs: 500 });
    const before = seen.length;
    const result = await sender.post(`http://localhost:${port}/ok`, '{}', {});
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toMatch(/loopback, private/);
    expect(seen.length).toBe(before);
    sender.close();
  });
});
