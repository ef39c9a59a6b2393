import { GATEWAY_CODES } from './results.ts';
import { OPERATIONS } from './operations.ts';
import { RESULT_ELEMENTS, TRAILING_RESULT_ELEMENTS } from './result-record.ts';
import { soapActionOf } from './soap-action.ts';
import { escapeXml } from './xml.ts';

/**
 * The WSDL 1.1 of the gateway, document/literal wrapped, shaped like the one ASP.NET writes for
 * an .asmx service so that generated clients of the original keep working: one wrapper element
 * per operation with optional string parameters, RecurringResult as a sequence (code an
 * enumeration of the gateway's codes), then the SOAP 1.1 binding and port first, SOAP 1.2, and
 * HTTP POST.
 */
export const SERVICE_NAME = 'Recurring';

const LIST_TYPES: Record<string, { type: string; item: string; fields: string[] }> = {
  Contracts: { type: 'ArrayOfContractInfo', item: 'ContractInfo', fields: ['Contract_Key', 'Next_Bill_Date'] },
  ContractTransactions: {
    type: 'ArrayOfLastContractTrans',
    item: 'LastContractTrans',
    fields: ['PaymentPref', 'Contract_Key', 'Transaction_Date', 'Transaction_Amount', 'Convenience_Fee', 'PNRef', 'ResultCode', 'ResponseMessage', 'AuthCode'],
  },
};

const stringElement = (name: string) => `<s:element minOccurs="0" maxOccurs="1" name="${name}" type="s:string" />`;

function resultType(): string {
  const elements = [...RESULT_ELEMENTS, ...TRAILING_RESULT_ELEMENTS].map((name) => {
    if (name === 'code') return '<s:element minOccurs="1" maxOccurs="1" name="code" type="tns:ResultCode" />';
    const list = LIST_TYPES[name];
    if (list) return `<s:element minOccurs="0" maxOccurs="1" name="${name}" type="tns:${list.type}" />`;
    return stringElement(name);
  });
  const lists = Object.values(LIST_TYPES).map(
    (l) =>
      `<s:complexType name="${l.type}"><s:sequence><s:element minOccurs="0" maxOccurs="unbounded" name="${l.item}" nillable="true" type="tns:${l.item}" /></s:sequence></s:complexType>` +
      `<s:complexType name="${l.item}"><s:sequence>${l.fields.map(stringElement).join('')}</s:sequence></s:complexType>`,
  );
  return (
    `<s:complexType name="RecurringResult"><s:sequence>${elements.join('')}</s:sequence></s:complexType>` +
    `<s:simpleType name="ResultCode"><s:restriction base="s:string">${GATEWAY_CODES.map((c) => `<s:enumeration value="${c}" />`).join('')}</s:restriction></s:simpleType>` +
    lists.join('')
  );
}

/** The WSDL for a service at `location` (the address clients will post to). */
export function wsdlDocument(namespace: string, location: string): string {
  const ns = escapeXml(namespace);
  const loc = escapeXml(location);
  const action = (op: string) => escapeXml(soapActionOf(namespace, op));
  const wrappers = OPERATIONS.map(
    (op) =>
      `<s:element name="${op.name}"><s:complexType><s:sequence>${op.parameters.map((p) => stringElement(p.name)).join('')}</s:sequence></s:complexType></s:element>` +
      `<s:element name="${op.name}Response"><s:complexType><s:sequence><s:element minOccurs="0" maxOccurs="1" name="${op.name}Result" type="tns:RecurringResult" /></s:sequence></s:complexType></s:element>`,
  ).join('');
  const messages = OPERATIONS.map(
    (op) =>
      `<wsdl:message name="${op.name}SoapIn"><wsdl:part name="parameters" element="tns:${op.name}" /></wsdl:message>` +
      `<wsdl:message name="${op.name}SoapOut"><wsdl:part name="parameters" element="tns:${op.name}Response" /></wsdl:message>` +
      `<wsdl:message name="${op.name}HttpPostIn">${op.parameters.map((p) => `<wsdl:part name="${p.name}" type="s:string" />`).join('')}</wsdl:message>` +
      `<wsdl:message name="${op.name}HttpPostOut"><wsdl:part name="Body" element="tns:RecurringResult" /></wsdl:message>`,
  ).join('');
  const portType = (suffix: 'Soap' | 'HttpPost') =>
    `<wsdl:portType name="${SERVICE_NAME}${suffix}">` +
    OPERATIONS.map(
      (op) =>
        `<wsdl:operation name="${op.name}"><wsdl:documentation xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">${escapeXml(op.summary)}</wsdl:documentation>` +
        `<wsdl:input message="tns:${op.name}${suffix}In" /><wsdl:output message="tns:${op.name}${suffix}Out" /></wsdl:operation>`,
    ).join('') +
    `</wsdl:portType>`;
  const soapBinding = (prefix: 'soap' | 'soap12', name: string) =>
    `<wsdl:binding name="${name}" type="tns:${SERVICE_NAME}Soap"><${prefix}:binding transport="http://schemas.xmlsoap.org/soap/http" />` +
    OPERATIONS.map(
      (op) =>
        `<wsdl:operation name="${op.name}"><${prefix}:operation soapAction="${action(op.name)}" style="document" />` +
        `<wsdl:input><${prefix}:body use="literal" /></wsdl:input><wsdl:output><${prefix}:body use="literal" /></wsdl:output></wsdl:operation>`,
    ).join('') +
    `</wsdl:binding>`;
  const httpBinding =
    `<wsdl:binding name="${SERVICE_NAME}HttpPost" type="tns:${SERVICE_NAME}HttpPost"><http:binding verb="POST" />` +
    OPERATIONS.map(
      (op) =>
        `<wsdl:operation name="${op.name}"><http:operation location="/${op.name}" />` +
        `<wsdl:input><mime:content type="application/x-www-form-urlencoded" /></wsdl:input><wsdl:output><mime:mimeXml part="Body" /></wsdl:output></wsdl:operation>`,
    ).join('') +
    `</wsdl:binding>`;
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n` +
    `<wsdl:definitions xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:tm="http://microsoft.com/wsdl/mime/textMatching/" ` +
    `xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:mime="http://schemas.xmlsoap.org/wsdl/mime/" xmlns:tns="${ns}" ` +
    `xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/" xmlns:http="http://schemas.xmlsoap.org/wsdl/http/" ` +
    `targetNamespace="${ns}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">` +
    `<wsdl:types><s:schema elementFormDefault="qualified" targetNamespace="${ns}">${wrappers}${resultType()}` +
    `<s:element name="RecurringResult" nillable="true" type="tns:RecurringResult" /></s:schema></wsdl:types>` +
    messages +
    portType('Soap') +
    portType('HttpPost') +
    soapBinding('soap', `${SERVICE_NAME}Soap`) +
    soapBinding('soap12', `${SERVICE_NAME}Soap12`) +
    httpBinding +
    `<wsdl:service name="${SERVICE_NAME}">` +
    `<wsdl:port name="${SERVICE_NAME}Soap" binding="tns:${SERVICE_NAME}Soap"><soap:address location="${loc}" /></wsdl:port>` +
    `<wsdl:port name="${SERVICE_NAME}Soap12" binding="tns:${SERVICE_NAME}Soap12"><soap12:address location="${loc}" /></wsdl:port>` +
    `<wsdl:port name="${SERVICE_NAME}HttpPost" binding="tns:${SERVICE_NAME}HttpPost"><http:address location="${loc}" /></wsdl:port>` +
    `</wsdl:service></wsdl:definitions>`
  );
}
