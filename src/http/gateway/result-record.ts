import type { GatewayResult } from './results.ts';
import { XSD, XSI } from './envelope.ts';
import { escapeXml } from './xml.ts';

/**
 * The RecurringResult record, in the spec's element order. `code` is always written; other empty
 * elements are left out. Contracts and ContractTransactions belong to operations this gateway
 * does not offer; they are in the WSDL for clients generated from the original, never filled.
 */
export const RESULT_ELEMENTS = [
  'CustomerID',
  'ClientSessionID',
  'CustomerKey',
  'ContractKey',
  'CcInfoKey',
  'CheckInfoKey',
  'code',
  'error',
  'Partner',
  'Vendor',
  'Username',
  'Result',
  'AuthCode',
  'PNRef',
  'Message',
  'Contracts',
  'ContractTransactions',
] as const;

/** Elements the spec's record list adds at the end; typed in the WSDL, never sent. */
export const TRAILING_RESULT_ELEMENTS = ['AccountNumber'] as const;

/** Which result field fills which element. */
const FIELD_OF: Partial<Record<(typeof RESULT_ELEMENTS)[number], keyof GatewayResult>> = {
  CustomerID: 'customerId',
  ClientSessionID: 'clientSessionId',
  CustomerKey: 'customerKey',
  CcInfoKey: 'ccInfoKey',
  CheckInfoKey: 'checkInfoKey',
  code: 'code',
  error: 'error',
  Vendor: 'vendor',
  Username: 'username',
};

/** The record as element name -> text, in element order, empty ones left out (for SOAP toolkits that build XML from objects). */
export function resultRecord(result: GatewayResult): Record<string, string> {
  const record: Record<string, string> = {};
  for (const element of RESULT_ELEMENTS) {
    const field = FIELD_OF[element];
    const value = field ? result[field] : undefined;
    if (value !== undefined && value !== '') record[element] = String(value);
  }
  return record;
}

/** The record's child elements (no wrapper), for a SOAP `<Op>Result>` or the HTTP POST root. */
export function resultElements(result: GatewayResult): string {
  let out = '';
  for (const element of RESULT_ELEMENTS) {
    const field = FIELD_OF[element];
    const value = field ? result[field] : undefined;
    if (value === undefined || value === '') continue;
    out += `<${element}>${escapeXml(String(value))}</${element}>`;
  }
  return out;
}

/** The HTTP POST reply: an XML document whose root is RecurringResult in the gateway's namespace. */
export function recurringResultDocument(namespace: string, result: GatewayResult): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n` +
    `<RecurringResult xmlns:xsi="${XSI}" xmlns:xsd="${XSD}" xmlns="${escapeXml(namespace)}">${resultElements(result)}</RecurringResult>`
  );
}
