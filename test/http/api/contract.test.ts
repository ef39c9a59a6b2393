import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { unreachableDatabaseError, withUnreachableSql } from '../../helpers/unreachable-database.ts';

/**
 * What a partner generating a typed client from /openapi.json relies on (a contract audit ran
 * openapi-typescript, hey-api and orval against it): stable operation names, one request media
 * type, every error status the server can give, and the closed sets the spec enumerates.
 */
type Operation = {
  operationId?: string;
  security?: unknown[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { headers?: Record<string, unknown> }>;
};
let ctx: TestContext;
let operations: [string, Operation][];
let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } };

beforeAll(async () => {
  ctx = await createTestContext();
  doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]));
});
afterAll(() => ctx.close());

describe('/openapi.json for client generators', () => {
  it('names every operation, each name once', () => {
    const ids = operations.map(([, op]) => op.operationId);
    expect(operations.length).toBeGreaterThanOrEqual(17);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/payment']!.post!.operationId).toBe('createPayment');
  });

  it('gives request bodies one media type, the spec\'s, so generators send it (orval sent none when there were four)', () => {
    const bodies = operations.filter(([, op]) => op.requestBody);
    // 13 with the four transaction report operations, 16 with the three notification ones that take a body.
    expect(bodies.length).toBe(16);
    for (const [name, op] of bodies) expect(Object.keys(op.requestBody!.content), name).toEqual(['application/json-patch+json']);
  });

  it('says which operations need an AccessToken and that the two public ones need nothing', () => {
    for (const [name, op] of operations) {
      const isPublic = name === 'POST /api/ClientSession' || name === 'GET /api/CharitySearch';
      expect(op.security, name).toEqual(isPublic ? [] : [{ AccessToken: [] }]);
      expect(Object.keys(op.responses).includes('401'), name).toBe(!isPublic);
    }
  });

  it('documents 503 with Retry-After on every operation, 429 with Retry-After where a rate limit applies, 413 and 415 where a body can be sent', () => {
    for (const [name, op] of operations) {
      expect(op.responses['503']?.headers?.['Retry-After'], name).toBeDefined();
      expect(Object.keys(op.responses).includes('429'), name).toBe(name === 'POST /api/ClientSession' || name === 'GET /api/CharitySearch');
      const bodyMayBeSent = !name.startsWith('GET ');
      expect(Object.keys(op.responses).includes('413'), name).toBe(bodyMayBeSent);
      expect(Object.keys(op.responses).includes('415'), name).toBe(bodyMayBeSent);
    }
    expect(doc.paths['/api/ClientSession']!.post!.responses['429']!.headers?.['Retry-After']).toBeDefined();
  });

  it('closes the sets the spec enumerates: PaymentResult, ProcessStatus, CardType', () => {
    for (const schema of ['PaymentResponse', 'RefundVoidResponse']) {
      const properties = doc.components.schemas[schema]!.properties;
      expect(properties.PaymentResult!.enum, schema).toEqual([1, 2, 3, 4, 5, 6]);
      expect(properties.ProcessStatus!.enum, schema).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 10, 11]);
    }
    expect(JSON.stringify(doc.components.schemas.PaymentResponse!.properties.CardType)).toContain('"enum":["American Express","Mastercard","Visa","Discover","Diners Club","Undefined"]');
  });

  it('a 503 as sent matches what the document says of them', async () => {
    const token = await ctx.token(ctx.nonProfit);
    const quote = vi.spyOn(ctx.services.fees, 'quote').mockImplementation(async () => {
      throw unreachableDatabaseError();
    });
    await withUnreachableSql(ctx.store, async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/CharitySearch?EIN=53-0196605' });
      expect(res.statusCode).toBe(503);
      await expectDocumented(ctx.app, 'GET', '/api/CharitySearch', res);
      const fees = await ctx.app.inject({
        method: 'POST',
        url: '/api/fees',
        headers: { AccessToken: token },
        payload: { Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00' }] },
      });
      expect(fees.statusCode).toBe(503);
      await expectDocumented(ctx.app, 'POST', '/api/fees', fees);
    }).finally(() => quote.mockRestore());
    await ctx.app.inject({ method: 'GET', url: '/readyz' });
  });
});
