import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { type Body, linkBody, openPage } from '../paypage/paylink-helpers.ts';

/** POST /api/paylink with bodies no client should send: wrong JSON types, control characters, oversized themes. */

// The theme sanitizer, watched: an oversized or mistyped Theme must be refused before it is parsed.
const sanitized = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../../../src/modules/paylinks/theme.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/modules/paylinks/theme.ts')>();
  return {
    ...original,
    sanitizeTheme: (theme: string) => {
      sanitized.calls++;
      return original.sanitizeTheme(theme);
    },
  };
});

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());
beforeEach(() => {
  sanitized.calls = 0;
});

const post = (body: Body, partner = ctx.nonProfit) => ctx.as(partner, { method: 'POST', url: '/api/paylink', payload: body });
const rules = (res: { json(): unknown }) => res.json() as { ErrorCode: number; Message: string; LoggerMessage: string }[];
const fieldsOf = (res: { json(): unknown }) => rules(res).map((r) => r.LoggerMessage.split(':')[0]);

describe('POST /api/paylink with wrong JSON types', () => {
  it.each([
    ['RedirectUrl', {}],
    ['RedirectUrl', 42],
    ['Email', ['a', 'b']],
    ['TokenGuid', {}],
    ['ProcessorGuid', []],
    ['IntegrationSource', { a: 1 }],
    ['Theme', {}],
    ['Theme', ['a{color:red}', 'b{color:red}']],
    ['ThemeFonts', [{}]],
    ['ThemeFonts', {}],
    ['Language', {}],
    ['TranId', { toString: 'x' }],
    ['FirstName', {}],
    ['ExternalConstituentId', []],
    ['ShowTransactionId', 'maybe'],
    ['TokenizeCard', {}],
    ['WorkflowType', {}],
    ['PaymentLines', 'x'],
    ['PaymentLines', { a: 1 }],
    ['PaymentLines', [null]],
    ['PaymentLines', ['x']],
    ['PaymentLines', [{}]],
    ['PaymentLines', [{ Amount: {}, Type: 1 }]],
    ['PaymentLines', [{ Amount: '1.00', Type: {} }]],
    ['PaymentLines', [{ Amount: '1.00', Type: 1, ExternalLineId: {} }]],
    ['PaymentLines', [{ Amount: '1.00', Type: 1, Recurring: 'x' }]],
  ])('answers 400 BrokenRules, not 500, for %s = %j', async (field, value) => {
    const res = await post(linkBody(ctx.nonProfit, { [field]: value }));
    expect(res.statusCode, res.body).toBe(400);
    expect(rules(res).length).toBeGreaterThan(0);
    expect(fieldsOf(res).some((f) => f === field || f!.startsWith(`${field}[`))).toBe(true);
    expect(sanitized.calls).toBe(0);
  });

  it('answers 400 for a wrongly typed ApiKey too', async () => {
    const res = await post(linkBody(ctx.nonProfit, { ApiKey: {} }));
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res)).toContain('ApiKey');
  });

  it('reports a wrong type with the other broken fields at once', async () => {
    const res = await post(linkBody(ctx.nonProfit, { RedirectUrl: {}, Email: 'nope', PaymentLines: [{ Amount: '-1', Type: 1 }] }));
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res).sort()).toEqual(['Email', 'PaymentLines[0].Amount', 'RedirectUrl']);
  });
});

describe('POST /api/paylink with control characters', () => {
  it.each(['TranId', 'FirstName', 'LastName', 'Street', 'City', 'TransactionIdText', 'PoweredByText', 'DonateButtonText', 'Language', 'ExternalEventName', 'ExternalConstituentId', 'ExternalCustomerId', 'IpAddress', 'RedirectUrl'])(
    'refuses U+0000 and other control characters in %s with BrokenRule 1003',
    async (field) => {
      for (const control of ['\u0000', '\u0001', '\u007f']) {
        const value = field === 'RedirectUrl' ? `https://x.example/${control}` : field === 'IpAddress' ? `1.2.3.4${control}` : `a${control}b`;
        const res = await post(linkBody(ctx.nonProfit, { [field]: value }));
        expect(res.statusCode, res.body).toBe(400);
        expect(rules(res)).toContainEqual(expect.objectContaining({ ErrorCode: 1003, LoggerMessage: `${field}: rule 1003` }));
      }
      const res = await post(linkBody(ctx.nonProfit, { [field]: 'a\u0002' }));
      expect(rules(res)).toContainEqual({ ErrorCode: 1003, Message: `'${field}' must not contain control characters.`, LoggerMessage: `${field}: rule 1003` });
    },
  );

  it('refuses other control characters in text fields (a line break in a name, an escape)', async () => {
    const res = await post(linkBody(ctx.nonProfit, { FirstName: 'Ada\nLovelace', LastName: 'L\u001b[31m' }));
    expect(fieldsOf(res).sort()).toEqual(['FirstName', 'LastName']);
  });

  it("refuses control characters in a line's ExternalLineId", async () => {
    for (const control of ['\u0000', '\u0001']) {
      const res = await post(linkBody(ctx.nonProfit, { PaymentLines: [{ Amount: '1.00', Type: 1, ExternalLineId: `a${control}` }] }));
      expect(res.statusCode).toBe(400);
      expect(rules(res)).toContainEqual(expect.objectContaining({ ErrorCode: 1003, LoggerMessage: 'PaymentLines[0].ExternalLineId: rule 1003' }));
    }
  });

  it('refuses lines that add up to more than any payment may be (9999999999.99), fees included', async () => {
    const res = await post(linkBody(ctx.nonProfit, { PaymentLines: [{ Amount: '9999999999.99', Type: 1 }, { Amount: '9999999999.99', Type: 1 }] }));
    expect(res.statusCode).toBe(400);
    expect(rules(res)).toEqual([expect.objectContaining({ ErrorCode: 1005, LoggerMessage: 'PaymentLines: rule 1005' })]);
    // PayFee puts the fees on top: a line just under the limit goes over it (the fee engine's 2003).
    const withFee = await post(linkBody(ctx.nonProfit, { PaymentLines: [{ Amount: '9999999999.00', Type: 1, PayFee: true }] }));
    expect(withFee.statusCode).toBe(400);
    expect(rules(withFee)).toEqual([expect.objectContaining({ ErrorCode: 2003 })]);
    expect((await post(linkBody(ctx.nonProfit, { PaymentLines: [{ Amount: '9999999999.99', Type: 1 }] }))).statusCode).toBe(200);
  });

  it('refuses control characters in the Theme, which may have tabs and line breaks', async () => {
    for (const control of ['\u0000', '\u0001', '\u001b']) {
      const bad = await post(linkBody(ctx.nonProfit, { Theme: `h1{color:red}${control}` }));
      expect(bad.statusCode).toBe(400);
      expect(rules(bad)).toContainEqual(expect.objectContaining({ ErrorCode: 1003, LoggerMessage: 'Theme: rule 1003' }));
    }
    expect(sanitized.calls).toBe(0);
    const good = await post(linkBody(ctx.nonProfit, { Theme: 'h1 {\r\n\tcolor: #123456;\n}' }));
    expect(good.statusCode, good.body).toBe(200);
    expect(sanitized.calls).toBe(1);
    const { html } = await openPage(ctx, good.json().PayLinkUrl.split('/').pop());
    expect(html).toContain('#paylink h1{color:#123456}');
  });
});

describe('POST /api/paylink with an oversized Theme', () => {
  it('refuses a Theme over 5000 characters without parsing it', async () => {
    const theme = '.a .b > .c:hover{color:red;background:linear-gradient(red,blue);margin:calc(1px + 2px)}'.repeat(11000);
    const res = await post(linkBody(ctx.nonProfit, { Theme: theme }));
    expect(res.statusCode).toBe(400);
    expect(rules(res)).toContainEqual({ ErrorCode: 1002, Message: "'Theme' must be at most 5000 characters.", LoggerMessage: 'Theme: rule 1002' });
    expect(sanitized.calls).toBe(0);
  });

  it('parses a Theme of the right type and size once', async () => {
    expect((await post(linkBody(ctx.nonProfit, { Theme: 'h1{color:red}'.repeat(384) }))).statusCode).toBe(200);
    expect(sanitized.calls).toBe(1);
  });
});
