import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, OperatorInputError } from '../../../src/platform/errors.ts';
import { createServices } from '../../../src/composition.ts';
import { testConfig } from '../../../src/config.ts';
import { memoryVault } from '../../../src/modules/vault/vault.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { testLogger } from '../../helpers/logger.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { FakeAuthorizeNet } from '../../processors/authorizenet/fake-authorizenet.ts';
import { REFERENCES_CACHE_MS } from '../../../src/modules/partners/reference-service.ts';

/**
 * Processors with Authorize.Net credentials (issue 30): added with the credentials sealed by the
 * vault, checked against (a fake of) Authorize.Net, offered with the payment method types the
 * adapter takes, and kept through a vault key rotation.
 */

const LOGIN = 'acctLogin42';
const KEY = 'Zx9Yw8Vu7Ts6Rq5P';

let fake: FakeAuthorizeNet;
let ctx: TestContext;
let processorId: string;

beforeAll(async () => {
  fake = await FakeAuthorizeNet.start([{ name: LOGIN, transactionKey: KEY }]);
  ctx = await createTestContext({ config: { authorizeNetSandboxUrl: fake.url } });
  ({ processorId } = await ctx.services.processorAccounts.add(ctx.forProfit.ClientId, {
    adapter: 'authorizenet',
    name: 'Authorize.Net sandbox',
    environment: 'sandbox',
    apiLoginId: LOGIN,
    transactionKey: KEY,
  }));
});
afterAll(async () => {
  await ctx.close();
  await fake.close();
});

describe('adding an Authorize.Net processor', () => {
  it('stores it on the authorizenet adapter with the types the adapter takes, and its credentials sealed', async () => {
    const [row] = await ctx.store.sql.query<{ adapter: string; payment_method_types: number[]; is_default: boolean }>('SELECT adapter, payment_method_types, is_default FROM processors WHERE id = $1', [processorId]);
    expect(row).toEqual({ adapter: 'authorizenet', payment_method_types: [1, 2, 3, 4, 5, 6, 7], is_default: false });
    const [sealed] = await ctx.store.sql.query<Record<string, unknown>>('SELECT * FROM processor_credentials WHERE processor_id = $1', [processorId]);
    expect(sealed).toMatchObject({ environment: 'sandbox', secret_key_id: ctx.services.vault.currentKeyId() });
    // Neither the key nor the login is anywhere in the row, nor in the log.
    expect(JSON.stringify(sealed)).not.toContain(KEY);
    expect(JSON.stringify(sealed)).not.toContain(LOGIN);
    expect(ctx.logs.join('')).not.toContain(KEY);
  });

  it('refuses what the adapter cannot take and credentials that cannot be right, never quoting the key', async () => {
    const add = (over: object) =>
      ctx.services.processorAccounts.add(ctx.forProfit.ClientId, { adapter: 'authorizenet', name: 'x', environment: 'sandbox', apiLoginId: LOGIN, transactionKey: KEY, ...over });
    await expect(add({ paymentMethodTypes: [3, 8] })).rejects.toThrow(/does not take payment method type\(s\) 8 \(WALLET_A\)/);
    await expect(add({ environment: undefined })).rejects.toThrow(/--sandbox or --production/);
    const badKey = await add({ transactionKey: 'short-secret-key!' }).catch((e: unknown) => e);
    expect(badKey).toBeInstanceOf(OperatorInputError);
    expect((badKey as Error).message).not.toContain('short-secret-key');
    await expect(add({ apiLoginId: 'has spaces' })).rejects.toThrow(/API login id/);
    await expect(add({ adapter: 'simulator' })).rejects.toThrow(/takes no credentials/);
    await expect(add({ adapter: 'acme' })).rejects.toThrow(/no processor adapter "acme" \(there are: simulator, authorizenet\)/);
    await expect(add({ mkey: (await ctx.services.partners.listProcessors(ctx.forProfit.ClientId))[0]!.mkey })).rejects.toThrow(/already the MKey/);
    await expect(add({})).resolves.toBeDefined();
  });

  it('checks the credentials with Authorize.Net (authenticateTestRequest)', async () => {
    expect(await ctx.services.processorAccounts.test(processorId)).toEqual({ ok: true, adapter: 'authorizenet', message: 'Authorize.Net (sandbox) accepted the credentials' });
    const wrong = await ctx.services.processorAccounts.add(ctx.forProfit.ClientId, { adapter: 'authorizenet', name: 'wrong', environment: 'sandbox', apiLoginId: LOGIN, transactionKey: 'AAAAAAAAAAAAAAAA' });
    const refused = await ctx.services.processorAccounts.test(wrong.processorId);
    expect(refused).toEqual({ ok: false, adapter: 'authorizenet', message: expect.stringMatching(/refused the credentials: E00007/) });
    expect(JSON.stringify(refused)).not.toContain('AAAAAAAAAAAAAAAA');
    expect(await ctx.services.processorAccounts.test(ctx.forProfit.processorId)).toEqual({ ok: true, adapter: 'simulator', message: 'the simulator adapter needs no credentials' });
    await expect(ctx.services.processorAccounts.test('00000000-0000-4000-8000-000000000000')).rejects.toThrow(NotFoundError);
    await expect(ctx.services.processorAccounts.test('nope')).rejects.toThrow(OperatorInputError);
    expect(fake.violations).toEqual([]);
  });
});

describe('GET /api/processorPaymentMethodTypes', () => {
  it("lists the processor's active types that its adapter takes", async () => {
    const res = await ctx.as(ctx.forProfit, { method: 'GET', url: `/api/processorPaymentMethodTypes?processorGuid=${processorId}` });
    expect(res.statusCode).toBe(200);
    await expectDocumented(ctx.app, 'GET', '/api/processorPaymentMethodTypes', res);
    expect(res.json().map((i: { PaymentMethodTypeId: number }) => i.PaymentMethodTypeId)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // A type on the row the adapter does not take (a wallet: Authorize.Net here takes none) is not offered.
    await ctx.store.sql.query('UPDATE processors SET payment_method_types = $2 WHERE id = $1', [processorId, [3, 7, 8, 9]]);
    // A processor's row is read again once the references cache has let it go (10 s).
    ctx.clock.advance(REFERENCES_CACHE_MS + 1);
    const filtered = await ctx.as(ctx.forProfit, { method: 'GET', url: `/api/processorPaymentMethodTypes?processorGuid=${processorId}` });
    expect(filtered.json()).toEqual([
      { PaymentMethodTypeId: 3, PaymentMethodTypeValue: 'VISA' },
      { PaymentMethodTypeId: 7, PaymentMethodTypeValue: 'ACH' },
    ]);
    // The simulator takes every type.
    const simulator = await ctx.as(ctx.forProfit, { method: 'GET', url: `/api/processorPaymentMethodTypes?processorGuid=${ctx.forProfit.processorId}` });
    expect(simulator.json()).toHaveLength((await ctx.services.partners.listProcessors(ctx.forProfit.ClientId))[0]!.paymentMethodTypes.length);
  });
});

describe('the vault keys of processor credentials', () => {
  it('are in use (not pruned) until a rotation re-seals the credentials under the new key, which still open', async () => {
    // A vault whose keys rotate here (the tests' VAULT_KEY rotates only by a restart).
    const vault = memoryVault(ctx.clock);
    const services = createServices({ store: ctx.store, clock: ctx.clock, ids: cryptoIds, config: testConfig({ authorizeNetSandboxUrl: fake.url }), log: testLogger(), vault });
    const before = vault.currentKeyId();
    const { processorId: id } = await services.processorAccounts.add(ctx.nonProfit.ClientId, { adapter: 'authorizenet', name: 'rotating', environment: 'sandbox', apiLoginId: LOGIN, transactionKey: KEY });
    expect(await services.processorAccounts.keyIdsInUse()).toContain(before);
    const after = vault.rotate();
    const result = await services.processorAccounts.reencryptAll();
    // The credentials of this vault's key are re-sealed; the others' (the tests' VAULT_KEY) it cannot open.
    expect(result.resealed).toBe(1);
    expect(await services.processorAccounts.keyIdsInUse()).toContain(after);
    expect(await services.processorAccounts.keyIdsInUse()).not.toContain(before);
    vault.forgetKeysExcept(new Set([after]));
    expect(await services.processorAccounts.test(id)).toMatchObject({ ok: true });
  });
});
