import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../helpers/process.ts';
import { processStore } from '../../helpers/store.ts';
import { NS, PATH, envelope11, resultOf } from './gateway-helpers.ts';

/** `npm start` prints the demo gateway user with the partners' credentials, and it works. */
let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ env, cleanup } = await processStore('gwdemo'));
});
afterAll(() => cleanup());

describe('the demo gateway user', () => {
  it('is printed by npm start, kept in demo-credentials.json, belongs to the non-profit partner, and tokenizes', async () => {
    const service = await startService(env, 170_000);
    try {
      const out = service.output();
      // Not a terminal here: the password is named by the file that holds it, not printed.
      const m = /Gateway user: Username (\S+)\s+Password <Password from (\S+)>\s+Vendor (\S+)/.exec(out);
      expect(m).not.toBeNull();
      const [, Username, file, Vendor] = m!;
      expect(file).toBe(join(env.DATA_DIR!, 'demo-credentials.json'));
      const saved = JSON.parse(readFileSync(file!, 'utf8'));
      const nonProfit = saved.partners.find((p: { kind: string }) => p.kind === 'non-profit');
      const Password = saved.gatewayUsers[0].Password as string;
      expect(out).not.toContain(Password);
      expect(saved.gatewayUsers).toEqual([{ partnerClientId: nonProfit.ClientId, Username, Password, Vendor }]);

      const base = `http://127.0.0.1:${service.port}${PATH}`;
      const call = async (op: string, params: Record<string, string>) => {
        const res = await fetch(base, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}/${op}"` }, body: envelope11(op, params) });
        expect(res.status).toBe(200);
        return resultOf(await res.text());
      };
      const session = await call('GetClientSessionID', { Username: Username!, Password: Password!, Vendor: Vendor! });
      expect(session.code).toBe('OK');
      const card = await call('GetToken', { ClientSessionID: session.ClientSessionID!, CcAccountNum: '4242424242424242', CcExpDate: '1230', FirstName: 'Demo', LastName: 'Donor' });
      expect(card).toMatchObject({ code: 'OK', CcInfoKey: expect.stringMatching(/^\d+$/) });
      expect(card.CustomerID).toMatch(new RegExp(`^${Vendor}-DemoDonor-\\d{14}$`));
    } finally {
      expect(await service.stop()).toBe(0);
    }
    // The next start prints the same gateway credentials.
    const again = await startService(env, 170_000);
    try {
      const saved = JSON.parse(readFileSync(join(env.DATA_DIR!, 'demo-credentials.json'), 'utf8'));
      expect(again.output()).toContain(`Username ${saved.gatewayUsers[0].Username}  Password <Password from`);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  }, 400_000);
});
