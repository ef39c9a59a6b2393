import { describe, expect, it } from 'vitest';
import { isRefusedAddress, resolvedUrlProblem, urlProblem } from '../../../src/modules/notifications/url-rules.ts';
import { signatureHeader } from '../../../src/modules/notifications/signer.ts';
import { createHmac } from 'node:crypto';

const production = { allowHttp: false, allowPrivate: false };

describe('the URL rules of notifications', () => {
  it('refuses loopback, private, link-local (metadata), multicast, unspecified and mapped addresses; takes public ones', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '224.0.0.1', '0.0.0.0', '100.64.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '::127.0.0.1', '::7f00:1', 'fec0::1', '2002:7f00:1::1', '2001:0:4136:e378::1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::1', '100::1', 'not-an-ip']) {
      expect(isRefusedAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1', '::ffff:8.8.8.8', '2a00:1450:4001::1']) expect(isRefusedAddress(a), a).toBe(false);
  });

  it('absolute https, http only outside production, at most 500 characters, no credentials', () => {
    expect(urlProblem('https://example.org/hook', production)).toBeUndefined();
    expect(urlProblem('http://example.org/hook', production)).toMatch(/https/);
    expect(urlProblem('http://example.org/hook', { allowHttp: true, allowPrivate: false })).toBeUndefined();
    expect(urlProblem('/relative', production)).toMatch(/absolute/);
    expect(urlProblem(`https://example.org/${'a'.repeat(490)}`, production)).toMatch(/500/);
    expect(urlProblem('https://a:b@example.org/', production)).toMatch(/credentials/);
    expect(urlProblem('https://127.0.0.1/', production)).toMatch(/private/);
    expect(urlProblem('https://127.0.0.1/', { allowHttp: false, allowPrivate: true })).toBeUndefined();
  });

  it('a host name is resolved: one that resolves to this machine is refused', async () => {
    expect(await resolvedUrlProblem('https://localhost/hook', production)).toMatch(/private/);
  });

  it('a resolver that does not answer is an answer within the time allowed', async () => {
    const silent = (() => undefined) as unknown as Parameters<typeof resolvedUrlProblem>[3];
    const started = Date.now();
    expect(await resolvedUrlProblem('https://hooks.example.org/hook', production, 200, silent)).toMatch(/could not be resolved in time/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('the signature', () => {
  it('is HMAC-SHA256 of t.body under each secret', () => {
    const header = signatureHeader('{"a":1}', ['s1', 's2'], 1_700_000_000);
    const hex = (s: string) => createHmac('sha256', s).update('1700000000.{"a":1}').digest('hex');
    expect(header).toBe(`t=1700000000,v1=${hex('s1')},v1=${hex('s2')}`);
  });
});
