import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { SoapFault, readSoapRequest, soapFault } from '../../../src/http/gateway/envelope.ts';
import { NS, SOAP11, SOAP12 } from './gateway-helpers.ts';

/**
 * Reading SOAP envelopes (SOAP 1.1 and 1.2): what is an operation call, and what is a fault.
 * Pure: readSoapRequest takes the body and the Content-Type, as the gateway's parser hands them.
 */
const TYPE = { '1.1': 'text/xml; charset=utf-8', '1.2': 'application/soap+xml; charset=utf-8' } as const;
const ENV = { '1.1': SOAP11, '1.2': SOAP12 } as const;
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

/** An envelope of `version` with the given inside (Header and Body elements, prefix `s`). */
const envelope = (version: '1.1' | '1.2', inside: string) =>
  `<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="${ENV[version]}" xmlns:xsi="${XSI}">${inside}</s:Envelope>`;
const op = (params = '<ClientSessionID>abc</ClientSessionID>') => `<GetToken xmlns="${NS}">${params}</GetToken>`;
const body = (inner = op()) => `<s:Body>${inner}</s:Body>`;

/** The SoapFault readSoapRequest throws, or undefined when it reads the request. */
function faultOf(xml: string, contentType: string): SoapFault | undefined {
  try {
    readSoapRequest(xml, contentType);
    return undefined;
  } catch (e) {
    if (e instanceof SoapFault) return e;
    throw e;
  }
}

describe.each(['1.1', '1.2'] as const)('SOAP %s envelopes', (version) => {
  const read = (inside: string) => readSoapRequest(envelope(version, inside), TYPE[version]);
  const fault = (inside: string) => faultOf(envelope(version, inside), TYPE[version]);

  it('reads the operation and its parameters', () => {
    const r = read(body());
    expect(r).toMatchObject({ version, operation: { namespace: NS, localName: 'GetToken' } });
    expect(r.params.get('clientsessionid')).toEqual({ name: 'ClientSessionID', values: ['abc'], structured: false });
  });

  it.each(['1', 'true'])('refuses a header block with mustUnderstand="%s" in the envelope namespace: MustUnderstand fault', (value) => {
    const f = fault(`<s:Header><Auth xmlns="urn:x" s:mustUnderstand="${value}">x</Auth></s:Header>${body()}`);
    expect(f).toMatchObject({ status: 500, faultCode: 'MustUnderstand' });
    expect(f!.message).toMatch(/Auth must be understood/);
  });

  it.each(['0', 'false'])('ignores a header block with mustUnderstand="%s"', (value) => {
    expect(read(`<s:Header><Auth xmlns="urn:x" s:mustUnderstand="${value}">x</Auth></s:Header>${body()}`).operation.localName).toBe('GetToken');
  });

  it('ignores mustUnderstand in a namespace other than the envelope’s', () => {
    const r = read(`<s:Header><Auth xmlns="urn:x" xmlns:o="urn:other" o:mustUnderstand="1">x</Auth></s:Header>${body()}`);
    expect(r.operation.localName).toBe('GetToken');
    // Nor an unqualified one: an attribute without a prefix is in no namespace.
    expect(read(`<s:Header><Auth xmlns="urn:x" mustUnderstand="1">x</Auth></s:Header>${body()}`).operation.localName).toBe('GetToken');
  });

  it.each(['true', '1'])('treats a parameter with xsi:nil="%s" as absent', (value) => {
    const r = read(body(op(`<ClientSessionID>abc</ClientSessionID><CcZip xsi:nil="${value}" />`)));
    expect(r.params.get('cczip')?.values ?? []).toEqual([]);
    expect(r.params.get('clientsessionid')?.values).toEqual(['abc']);
  });

  it('keeps a parameter with xsi:nil="false"', () => {
    const r = read(body(op(`<CcZip xsi:nil="false">12345</CcZip>`)));
    expect(r.params.get('cczip')?.values).toEqual(['12345']);
  });

  it.each<[string, string, RegExp]>([
    ['a Body with two operation elements', body(op() + op()), /exactly one operation element/],
    ['a Body with two different operation elements', body(op() + `<GetClientSessionID xmlns="${NS}" />`), /exactly one operation element/],
    ['an empty Body', '<s:Body></s:Body>', /exactly one operation element/],
    ['no Body', '<s:Header />', /no Body/],
    ['no Header and no Body', '', /no Body/],
    ['two Body elements', body() + body(), /more than one Body/],
    ['two Header elements', `<s:Header /><s:Header />${body()}`, /more than one Header/],
    ['a foreign element in the envelope', `<x:Extra xmlns:x="urn:x" />${body()}`, /Unexpected element Extra/],
    ['an unqualified element in the envelope', `${body()}<Extra />`, /Unexpected element Extra/],
    ['an unknown element of the envelope namespace', `<s:Trailer />${body()}`, /Unexpected element Trailer/],
  ])('refuses %s with a Client fault', (_name, inside, message) => {
    const f = fault(inside);
    expect(f).toMatchObject({ status: 500, faultCode: 'Client' });
    expect(f!.message).toMatch(message);
  });
});

describe('the version and the Content-Type', () => {
  it.each(['Application/SOAP+XML', 'APPLICATION/SOAP+XML; charset=utf-8', 'application/soap+xml;charset=UTF-8; action="x"'])(
    'reads a 1.2 envelope sent as %s (media types are case-insensitive)',
    (type) => {
      expect(readSoapRequest(envelope('1.2', body()), type).version).toBe('1.2');
    },
  );
  it('answers a 1.2 envelope sent as text/xml, and a 1.1 one sent as application/soap+xml, with VersionMismatch', () => {
    expect(faultOf(envelope('1.2', body()), 'text/xml')).toMatchObject({ faultCode: 'VersionMismatch' });
    expect(faultOf(envelope('1.1', body()), 'Application/SOAP+XML')).toMatchObject({ faultCode: 'VersionMismatch' });
  });
  it('refuses a root that is not a SOAP Envelope', () => {
    expect(faultOf(`<Envelope xmlns="urn:x">${body()}</Envelope>`, 'text/xml')).toMatchObject({ faultCode: 'Client', message: 'The request is not a SOAP envelope.' });
  });
});

describe('faults', () => {
  const reader = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, parseTagValue: false });
  const message = 'Amount < 0 & "quoted" > 1';

  it('SOAP 1.1: faultcode and an escaped faultstring', () => {
    const xml = soapFault('1.1', 'Client', message);
    expect(xml).toContain('<faultstring>Amount &lt; 0 &amp; ');
    expect(xml).not.toContain(message);
    const fault = reader.parse(xml).Envelope.Body.Fault;
    expect(fault.faultcode).toBe('soap:Client');
    expect(fault.faultstring).toBe(message); // decoded, it reads as sent
  });

  it('SOAP 1.2: Code Value Sender/Receiver and an escaped Reason Text', () => {
    const xml = soapFault('1.2', 'Client', message);
    expect(xml).toContain('<soap:Value>soap:Sender</soap:Value>');
    expect(xml).toContain('Amount &lt; 0 &amp; ');
    expect(xml).not.toContain(message);
    expect(soapFault('1.2', 'Server', 'x')).toContain('<soap:Value>soap:Receiver</soap:Value>');
    expect(soapFault('1.2', 'MustUnderstand', 'x')).toContain('<soap:Value>soap:MustUnderstand</soap:Value>');
    // Well-formed: it parses, and the envelope is SOAP 1.2's.
    expect(xml).toContain(`xmlns:soap="${SOAP12}"`);
    expect(reader.parse(xml).Envelope.Body.Fault.Reason.Text['#text']).toBe(message);
  });
});
