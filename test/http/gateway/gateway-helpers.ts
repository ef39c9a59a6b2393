import { XMLParser } from 'fast-xml-parser';
import type { LightMyRequestResponse } from 'fastify';
import type { TestContext, TestPartner } from '../../helpers/context.ts';

export const NS = 'http://www.tpisoft.com/Admin/ws';
export const PATH = '/admin/ws/recurring.asmx';
export const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';

export interface GatewayLogin {
  Username: string;
  Password: string;
  Vendor: string;
  userId: string;
}

/** A gateway user of the partner (the password hash is the real, slow one). */
export async function createGatewayUser(ctx: TestContext, partner: TestPartner, username: string, vendor = 'TestVendor'): Promise<GatewayLogin> {
  const u = await ctx.services.gatewayUsers.create({ partnerId: partner.ClientId, username, vendor, password: `pw-${username}-0123456789` });
  return { Username: u.username, Password: u.password, Vendor: u.vendor, userId: u.id };
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function envelope11(op: string, params: Record<string, string>, ns = NS): string {
  const inner = Object.entries(params).map(([k, v]) => `<${k}>${escape(v)}</${k}>`).join('');
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11}"><soap:Body><${op} xmlns="${ns}">${inner}</${op}></soap:Body></soap:Envelope>`;
}

export function envelope12(op: string, params: Record<string, string>, ns = NS): string {
  const inner = Object.entries(params).map(([k, v]) => `<${k}>${escape(v)}</${k}>`).join('');
  return `<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="${SOAP12}"><soap12:Body><${op} xmlns="${ns}">${inner}</${op}></soap12:Body></soap12:Envelope>`;
}

export function soap11(ctx: TestContext, op: string, params: Record<string, string>, headers: Record<string, string> = { SOAPAction: `"${NS}/${op}"` }) {
  return ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml; charset=utf-8', ...headers }, payload: envelope11(op, params) });
}

export function soap12(ctx: TestContext, op: string, params: Record<string, string>, action: string | undefined = `${NS}/${op}`) {
  const type = `application/soap+xml; charset=utf-8${action === undefined ? '' : `; action="${action}"`}`;
  return ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': type }, payload: envelope12(op, params) });
}

export function formPost(ctx: TestContext, op: string, params: Record<string, string>) {
  return ctx.app.inject({
    method: 'POST',
    url: `${PATH}/${op}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(params).toString(),
  });
}

const reader = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', removeNSPrefix: true, parseTagValue: false });

/** The result record of a SOAP reply (`<Op>Result`) or an HTTP POST reply (RecurringResult), as a name -> text map, in order. */
export function resultOf(res: LightMyRequestResponse | string): Record<string, string> {
  const body = typeof res === 'string' ? res : res.body;
  const doc = reader.parse(body) as Record<string, Record<string, unknown>>;
  let record: Record<string, unknown>;
  if (doc.RecurringResult) record = doc.RecurringResult as Record<string, unknown>;
  else {
    const bodyEl = (doc.Envelope as Record<string, Record<string, unknown>>).Body!;
    const response = Object.values(bodyEl)[0] as Record<string, unknown>;
    record = Object.entries(response).find(([k]) => k.endsWith('Result'))![1] as Record<string, unknown>;
  }
  return Object.fromEntries(Object.entries(record).filter(([k]) => !k.startsWith('@_'))) as Record<string, string>;
}

/** The names of the record's elements, in document order. */
export function elementOrder(res: LightMyRequestResponse): string[] {
  const m = /<(?:\w+:)?(?:\w+Result)(?:\s[^>]*)?>(.*)<\/(?:\w+:)?\w+Result>/s.exec(res.body);
  return [...m![1]!.matchAll(/<(\w+)>/g)].map((x) => x[1]!);
}

export async function login(ctx: TestContext, user: GatewayLogin, extra: Record<string, string> = {}): Promise<string> {
  const res = await soap11(ctx, 'GetClientSessionID', { Username: user.Username, Password: user.Password, ...extra });
  const record = resultOf(res);
  if (record.code !== 'OK') throw new Error(`login failed: ${res.body}`);
  return record.ClientSessionID!;
}
