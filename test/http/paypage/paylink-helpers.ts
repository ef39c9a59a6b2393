import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestContext, TestPartner } from '../../helpers/context.ts';

/** Shared steps of the pay link tests: create a link, open its page, submit its form. */

export type Body = Record<string, unknown>;

export const REDIRECT_URL = 'https://partner.example/thanks?order=42';

export function linkBody(partner: TestPartner, overrides: Body = {}): Body {
  return {
    ApiKey: partner.ApiKey,
    RedirectUrl: REDIRECT_URL,
    PaymentLines: [{ Amount: '25.00', Type: partner.kind === 'for-profit' ? 12 : 1 }],
    ...(partner.kind === 'for-profit' ? { ProcessorGuid: partner.processorId } : {}),
    ...overrides,
  };
}

export async function createLink(ctx: TestContext, partner: TestPartner = ctx.nonProfit, overrides: Body = {}) {
  const res = await ctx.as(partner, { method: 'POST', url: '/api/paylink', payload: linkBody(partner, overrides) });
  expect(res.statusCode, res.body).toBe(200);
  const url = res.json().PayLinkUrl as string;
  const id = url.split('/').pop()!;
  return { res, url, id };
}

export function csrfOf(html: string): string {
  const m = /name="CsrfToken" value="([^"]+)"/.exec(html);
  expect(m, 'the page has a form token').not.toBeNull();
  return m![1]!.replace(/&amp;/g, '&');
}

export async function openPage(ctx: TestContext, id: string, query = '') {
  const res = await ctx.app.inject({ method: 'GET', url: `/paylink/${id}${query}` });
  return { res, html: res.body };
}

export function encodeForm(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** Opens the page for a fresh form token, then posts `fields` as the browser would. */
export async function submit(ctx: TestContext, id: string, fields: Record<string, string>, options: { headers?: Record<string, string>; ip?: string; csrf?: string } = {}): Promise<LightMyRequestResponse> {
  const csrf = options.csrf ?? csrfOf((await openPage(ctx, id)).html);
  return ctx.app.inject({
    method: 'POST',
    url: `/paylink/${id}`,
    remoteAddress: options.ip ?? '198.51.100.7',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', ...options.headers },
    payload: encodeForm({ CsrfToken: csrf, Action: 'pay', ...fields }),
  });
}

export const CARD = {
  PaymentMethod: 'card',
  Email: 'ada@example.org',
  NameOnCard: 'Ada Lovelace',
  CardNum: '4242 4242 4242 4242',
  ExpMonth: '12',
  ExpYear: '30',
  CVNum: '123',
  Zip: '12345',
  Street: '1 Main St',
  Country: 'US',
};

export const ACH = {
  PaymentMethod: 'ach',
  Email: 'ada@example.org',
  NameOnCheck: 'Ada Lovelace',
  CheckRoutingNumber: '110000000',
  CheckAccountNumber: '000123456789',
  CheckAccountTypeId: '1',
  CheckTypeId: '1',
  State: 'NY',
  Country: 'US',
};

/** The query of a redirect's Location. */
export function redirectQuery(res: LightMyRequestResponse): URLSearchParams {
  expect(res.statusCode, res.body).toBe(303);
  const location = String(res.headers.location);
  expect(location.startsWith('https://partner.example/thanks?order=42&')).toBe(true);
  return new URL(location).searchParams;
}

export async function paymentCount(ctx: TestContext): Promise<number> {
  return Number((await ctx.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM payments'))[0]!.n);
}

/** A page's <title> and its <h1>, as text (the page escapes them; tests compare plain text). */
export function titleOf(html: string): string {
  return decode(/<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '');
}

export function h1Of(html: string): string {
  return decode(/<h1>([^<]*)<\/h1>/.exec(html)?.[1] ?? '');
}

function decode(text: string): string {
  return text.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
