import { describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { banner } from '../../src/demo/banner.ts';
import type { DemoCredentials } from '../../src/demo/credentials.ts';

/** What `npm start` prints with the demo: secrets only to a terminal (an audit of the logs). */
const credentials: DemoCredentials = {
  note: 'demo',
  partners: [{ name: 'Demo Charity Partner', kind: 'non-profit', ClientId: '47f0bd09-69c0-4723-b59d-959c90c767c5', ClientSecret: 'secret-AAAA', ApiKey: 'apikey-BBBB' }],
  gatewayUsers: [{ partnerClientId: '47f0bd09-69c0-4723-b59d-959c90c767c5', Username: 'demo-gw', Password: 'password-CCCC', Vendor: 'Demo' }],
};
const config = testConfig({ dataDir: '/srv/payments', publicBaseUrl: 'http://localhost:8080' });
const stale = { partners: new Map(), gatewayPasswords: new Set<string>() };

describe('the start banner', () => {
  it('prints the demo secrets and a ready curl on a terminal', () => {
    const text = banner(config, credentials, new Map(), stale, { secrets: true });
    for (const secret of ['secret-AAAA', 'apikey-BBBB', 'password-CCCC']) expect(text).toContain(secret);
    expect(text).toContain(`-d '{"ClientId":"47f0bd09-69c0-4723-b59d-959c90c767c5","ClientSecret":"secret-AAAA"}'`);
  });

  it('elsewhere (a log) names the file that holds them instead, and still says how to call the service', () => {
    const text = banner(config, credentials, new Map(), stale, { secrets: false });
    for (const secret of ['secret-AAAA', 'apikey-BBBB', 'password-CCCC']) expect(text).not.toContain(secret);
    expect(text).toContain('47f0bd09-69c0-4723-b59d-959c90c767c5');
    expect(text).toContain('ClientSecret: <ClientSecret from /srv/payments/demo-credentials.json>');
    expect(text).toContain('Password <Password from /srv/payments/demo-credentials.json>');
    expect(text).toContain('curl -s -X POST http://localhost:8080/api/ClientSession');
  });
});
