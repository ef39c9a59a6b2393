import { type XmlElement, XmlRequestError, childElements, elementText, escapeXml, parseXml } from './xml.ts';

/** SOAP envelopes, 1.1 and 1.2: reading requests, writing responses and faults. */
export const SOAP11_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12_ENV = 'http://www.w3.org/2003/05/soap-envelope';
export const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
export const XSD = 'http://www.w3.org/2001/XMLSchema';

export type SoapVersion = '1.1' | '1.2';

export const CONTENT_TYPE: Record<SoapVersion, string> = {
  '1.1': 'text/xml; charset=utf-8',
  '1.2': 'application/soap+xml; charset=utf-8',
};

/** A fault: `Client` (the sender's fault; Sender in 1.2), `Server` (ours; Receiver in 1.2), or the envelope-level ones. */
export type FaultCode = 'Client' | 'Server' | 'VersionMismatch' | 'MustUnderstand';

export class SoapFault extends Error {
  readonly status: number;
  readonly faultCode: FaultCode;
  constructor(status: number, faultCode: FaultCode, message: string) {
    super(message);
    this.name = 'SoapFault';
    this.status = status;
    this.faultCode = faultCode;
  }
}

/** One parameter as sent: its name as written, and every value given for it. */
export interface ParamValue {
  name: string;
  values: string[];
  /** An element with child elements where text was expected. */
  structured: boolean;
}

/** Parameters by lower-case name: SOAP child elements and form fields bind case-insensitively. */
export type Params = Map<string, ParamValue>;

export interface SoapRequest {
  version: SoapVersion;
  /** The body's element: the operation's wrapper. */
  operation: { namespace: string; localName: string };
  params: Params;
}

type Scope = Map<string, string>;

function withDeclarations(node: XmlElement, parent: Scope): Scope {
  let scope = parent;
  for (const [k, v] of Object.entries(node)) {
    if (k === '@_xmlns' || k.startsWith('@_xmlns:')) {
      if (scope === parent) scope = new Map(parent);
      scope.set(k === '@_xmlns' ? '' : k.slice(8), String(v));
    }
  }
  return scope;
}

function qualified(name: string, scope: Scope): { namespace: string; localName: string; prefix: string } {
  const colon = name.indexOf(':');
  const prefix = colon < 0 ? '' : name.slice(0, colon);
  const localName = colon < 0 ? name : name.slice(colon + 1);
  return { namespace: scope.get(prefix) ?? '', localName, prefix };
}

function asElement(value: unknown): XmlElement {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as XmlElement) : {};
}

/**
 * Reads a SOAP request. XML problems (DOCTYPE, malformed, nesting) are XmlRequestError (400);
 * SOAP problems (not an envelope, the wrong version for the content type, a header that must be
 * understood, no single body element) are SoapFaults (500), as SOAP says.
 */
export function readSoapRequest(xml: string, contentType: string): SoapRequest {
  const doc = parseXml(xml);
  const expected: SoapVersion = /^application\/soap\+xml/i.test(contentType) ? '1.2' : '1.1';
  const roots = childElements(doc);
  if (roots.length !== 1 || Array.isArray(roots[0]![1])) throw new XmlRequestError('malformed', 'The request must have exactly one root element.');
  const [rootName, rootValue] = roots[0]!;
  const root = asElement(rootValue);
  const rootScope = withDeclarations(root, new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]));
  const envelope = qualified(rootName, rootScope);
  const version: SoapVersion | undefined = envelope.namespace === SOAP11_ENV ? '1.1' : envelope.namespace === SOAP12_ENV ? '1.2' : undefined;
  if (envelope.localName !== 'Envelope' || !version) {
    throw new SoapFault(500, 'Client', 'The request is not a SOAP envelope.');
  }
  if (version !== expected) {
    throw new SoapFault(500, 'VersionMismatch', `A SOAP ${version} envelope was sent as ${expected === '1.1' ? 'text/xml (SOAP 1.1)' : 'application/soap+xml (SOAP 1.2)'}.`);
  }
  let body: { node: XmlElement; scope: Scope } | undefined;
  for (const [name, value] of childElements(root)) {
    const q = qualified(name, rootScope);
    if (q.namespace !== envelope.namespace) throw new SoapFault(500, 'Client', `Unexpected element ${q.localName} in the envelope.`);
    if (Array.isArray(value)) throw new SoapFault(500, 'Client', `The envelope has more than one ${q.localName}.`);
    const node = asElement(value);
    const scope = withDeclarations(node, rootScope);
    if (q.localName === 'Header') checkHeaders(node, scope, envelope.namespace, version);
    else if (q.localName === 'Body') body = { node, scope };
    else throw new SoapFault(500, 'Client', `Unexpected element ${q.localName} in the envelope.`);
  }
  if (!body) throw new SoapFault(500, 'Client', 'The envelope has no Body.');
  const entries = childElements(body.node);
  if (entries.length !== 1 || Array.isArray(entries[0]![1])) throw new SoapFault(500, 'Client', 'The SOAP Body must hold exactly one operation element.');
  const [opName, opValue] = entries[0]!;
  const opNode = asElement(opValue);
  const opScope = withDeclarations(opNode, body.scope);
  const op = qualified(opName, opScope);
  const params: Params = new Map();
  for (const [name, value] of childElements(opNode)) {
    const localName = qualified(name, opScope).localName;
    const key = localName.toLowerCase();
    const entry = params.get(key) ?? { name: localName, values: [], structured: false };
    for (const item of Array.isArray(value) ? value : [value]) {
      if (isNil(item)) continue;
      const text = elementText(item);
      if (text === undefined) entry.structured = true;
      else entry.values.push(text);
    }
    params.set(key, entry);
  }
  return { version, operation: { namespace: op.namespace, localName: op.localName }, params };
}

function isNil(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  const node = value as XmlElement;
  return Object.entries(node).some(([k, v]) => k.endsWith(':nil') && (v === 'true' || v === '1'));
}

/** A header block marked mustUnderstand is one we do not understand: we understand none. */
function checkHeaders(header: XmlElement, scope: Scope, envNs: string, version: SoapVersion) {
  for (const [name, value] of childElements(header)) {
    for (const block of Array.isArray(value) ? value : [value]) {
      const node = asElement(block);
      const blockScope = withDeclarations(node, scope);
      for (const [attr, v] of Object.entries(node)) {
        if (!attr.startsWith('@_')) continue;
        const q = qualified(attr.slice(2), blockScope);
        if (q.localName === 'mustUnderstand' && q.namespace === envNs && (v === '1' || v === 'true')) {
          throw new SoapFault(500, 'MustUnderstand', `The header ${qualified(name, blockScope).localName} must be understood, and it is not (SOAP ${version}).`);
        }
      }
    }
  }
}

const ENVELOPE_OPEN: Record<SoapVersion, string> = {
  '1.1': `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11_ENV}" xmlns:xsi="${XSI}" xmlns:xsd="${XSD}"><soap:Body>`,
  '1.2': `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP12_ENV}" xmlns:xsi="${XSI}" xmlns:xsd="${XSD}"><soap:Body>`,
};
const ENVELOPE_CLOSE = '</soap:Body></soap:Envelope>';

/** `<Op>Response xmlns=ns><Op>Result>...</Op>Result></Op>Response>` in an envelope. */
export function soapResponse(version: SoapVersion, namespace: string, operation: string, resultInner: string): string {
  return (
    ENVELOPE_OPEN[version] +
    `<${operation}Response xmlns="${escapeXml(namespace)}"><${operation}Result>${resultInner}</${operation}Result></${operation}Response>` +
    ENVELOPE_CLOSE
  );
}

const FAULT_12: Record<FaultCode, string> = { Client: 'Sender', Server: 'Receiver', VersionMismatch: 'VersionMismatch', MustUnderstand: 'MustUnderstand' };

export function soapFault(version: SoapVersion, code: FaultCode, message: string): string {
  const text = escapeXml(message);
  if (version === '1.1') {
    return `${ENVELOPE_OPEN['1.1']}<soap:Fault><faultcode>soap:${code}</faultcode><faultstring>${text}</faultstring><detail /></soap:Fault>${ENVELOPE_CLOSE}`;
  }
  return (
    `${ENVELOPE_OPEN['1.2']}<soap:Fault><soap:Code><soap:Value>soap:${FAULT_12[code]}</soap:Value></soap:Code>` +
    `<soap:Reason><soap:Text xml:lang="en">${text}</soap:Text></soap:Reason><soap:Detail /></soap:Fault>${ENVELOPE_CLOSE}`
  );
}
