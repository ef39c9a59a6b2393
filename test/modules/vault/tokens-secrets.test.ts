import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { dumpAllTables, findSecrets } from './secret-scan.ts';

/**
 * Plain card and account numbers never reach a database column or a log line: tokenize known
 * numbers through the service, then scan every column of every table and every captured log line.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const CARDS = ['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117', '3056930009020004', '3530111333300000'];
const ACCOUNTS = ['987654321012', '11223344', '7654321', '123456789'];

describe('no plain secret is stored or logged', () => {
  it('tokenizes known numbers, then finds none of them in a full dump or in the logs', async () => {
    const { tokens } = ctx.services;
    const made = [];
    for (const n of CARDS) {
      made.push(await tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: n, expMonth: '09', expYear: '29', firstName: 'Ada', source: 'api' }));
    }
    made.push(await tokens.tokenizeBankAccount(ctx.nonProfit.ClientId, { routingNumber: '021000021', accountNumber: ACCOUNTS[0]!, accountType: 1, source: 'api' }));
    made.push(await tokens.tokenizeBankAccount(ctx.forProfit.ClientId, { routingNumber: '011000015', accountNumber: ACCOUNTS[1]!, accountType: 2, source: 'api' }));
    made.push(await tokens.tokenizeBankAccount(ctx.forProfit.ClientId, { country: 'CA', routingNumber: '000112345', accountNumber: ACCOUNTS[2]!, accountType: 1, source: 'api' }));
    made.push(await tokens.tokenizeBankAccount(ctx.forProfit.ClientId, { country: 'AU', routingNumber: '062000', accountNumber: ACCOUNTS[3]!, accountType: 1, source: 'api' }));
    // A failed attempt (bad expiry) must not leave the number anywhere either.
    await tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '4000000000000002', expMonth: '13', expYear: '29', source: 'api' }).catch(() => {});

    // The numbers are really there, sealed: the vault gives them back.
    expect(await Promise.all(made.map((t) => tokens.reveal(t)))).toEqual([...CARDS, ...ACCOUNTS]);

    const dump = await dumpAllTables(ctx.store);
    expect(dump.tables).toContain('payment_tokens');
    expect(dump.text).toContain('v1:k');
    // The scan can fail: the last 4 digits are stored, in plain text.
    expect(dump.text).toContain('4242');
    expect(findSecrets(dump.text, [...CARDS, ...ACCOUNTS, '4000000000000002'])).toEqual([]);
    expect(findSecrets(ctx.logs.join('\n'), [...CARDS, ...ACCOUNTS, '4000000000000002'])).toEqual([]);
    if (ctx.store.dump) {
      // PGlite: the whole data directory, byte for byte (heap, indexes, WAL).
      const files = Buffer.from(await (await ctx.store.dump()).arrayBuffer()).toString('latin1');
      expect(findSecrets(files, [...CARDS, ...ACCOUNTS])).toEqual([]);
    }
  });

  it('the scan itself finds a number that is there', () => {
    expect(findSecrets('x 4242 4242 4242 4242 y', ['4242424242424242'])).toEqual(['4242424242424242']);
    expect(findSecrets('payment_tokens: (...,5555-5555-5555-4444,...)', ['5555555555554444'])).toEqual(['5555555555554444']);
  });
});
