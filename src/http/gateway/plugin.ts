import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../composition.ts';
import type { GatewayCaller, GatewayService } from '../../modules/gateway/gateway-service.ts';
import { CONTENT_TYPE, type FaultCode, type Params, SoapFault, type SoapRequest, type SoapVersion, readSoapRequest, soapFault, soapResponse } from './envelope.ts';
import { helpPage } from './help-page.ts';
import { type GatewayOperation, findOperation } from './operations.ts';
import { recurringResultDocument, resultElements } from './result-record.ts';
import type { GatewayResult } from './results.ts';
import { sameNamespace, soapActionOf } from './soap-action.ts';
import { arrivedOverHttps } from './transport.ts';
import { wsdlDocument } from './wsdl.ts';
import { XmlRequestError } from './xml.ts';
import { utf8FormEntries, utf8Text } from '../../platform/utf8-text.ts';
import { DatabaseUnavailableError, InvalidStoredValueError, VaultError, findError } from '../../platform/errors.ts';

/** Surface B: the SOAP 1.1 / SOAP 1.2 / HTTP POST tokenization gateway. */
export const GATEWAY_PATH = '/admin/ws/recurring.asmx';
/** Request bodies over this are refused with 413 before they are read further. */
export const GATEWAY_BODY_LIMIT = 64 * 1024;

const SOAP_TYPES = ['text/xml', 'application/soap+xml'];
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The SOAP version a request's content type speaks, if it is a SOAP one. */
function soapVersionOf(request: FastifyRequest): SoapVersion | undefined {
  // The media type itself, without its parameters: `text/xmlfoo` is not SOAP.
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/soap+xml') return '1.2';
  if (type === 'text/xml') return '1.1';
  return undefined;
}

function caller(request: FastifyRequest): GatewayCaller {
  const ua = request.headers['user-agent'];
  // Stored with the session when UserAgent is not sent: never with a NUL (PostgreSQL text cannot hold one).
  return { ip: request.ip, userAgent: typeof ua === 'string' ? ua.replace(/\u0000/g, '') : undefined };
}

/** PostgreSQL's refusal of text it cannot store: a NUL (22021), or a character the encoding lacks (22P05). */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/**
 * What the gateway says when its database cannot be reached. The spec's codes have no "try
 * again", so the code stays Internal_Error (a Server fault over SOAP); the words tell the
 * integration that the call may be repeated, and the log gets one warn line per call, not a
 * stack trace each (an outage floods the log otherwise).
 */
const DATABASE_UNAVAILABLE = 'The service cannot reach its database. Try again shortly.';

/** When the vault cannot seal or open card and account data on this server (its keys unavailable). */
const VAULT_UNAVAILABLE = 'Card and bank account data cannot be stored or read on this server at the moment; the operator is told. Try again later.';

function logDatabaseUnavailable(request: FastifyRequest, err: unknown, unavailable: DatabaseUnavailableError, operation: string | undefined) {
  request.log.warn({ operation, errorName: (err as { name?: unknown })?.name, code: unavailable.driverCode }, 'database unavailable: gateway call not carried out');
  request.server.databaseAvailability.refused();
}

/**
 * Runs an operation; what it throws is never a text/plain 500. Text the database cannot store
 * (a backstop: the parameters refuse NUL first) is Invalid_Argument. An unreachable database is
 * said as such (DATABASE_UNAVAILABLE). Any other error is logged and, over SOAP, rethrown to
 * become a Server fault (gatewayErrorHandler); over HTTP POST, which has no faults, it is the
 * record `Internal_Error`.
 */
async function runOperation(request: FastifyRequest, gateway: GatewayService, op: GatewayOperation, params: Params, overSoap: boolean): Promise<GatewayResult> {
  try {
    return await op.run(gateway, params, caller(request));
  } catch (err) {
    const state = findError(err, InvalidStoredValueError)?.driverCode;
    if (state && UNSTORABLE_TEXT.has(state)) {
      // Not the error itself: its message carries every bound parameter.
      request.log.warn({ operation: op.name, sqlState: state }, 'gateway parameter refused by the database');
      return { code: 'Invalid_Argument', error: 'A parameter holds a character that cannot be stored.' };
    }
    const unavailable = findError(err, DatabaseUnavailableError);
    if (unavailable) {
      logDatabaseUnavailable(request, err, unavailable, op.name);
      if (overSoap) throw new SoapFault(500, 'Server', DATABASE_UNAVAILABLE);
      return { code: 'Internal_Error', error: DATABASE_UNAVAILABLE };
    }
    if (err instanceof VaultError) {
      // Its message (which key, which file) is for the operator; the caller learns that storing
      // is unavailable here, rather than a bare "unable to process".
      request.log.error({ operation: op.name, vaultError: err.message }, 'gateway call not carried out: the vault cannot seal or open here');
      if (overSoap) throw new SoapFault(500, 'Server', VAULT_UNAVAILABLE);
      return { code: 'Internal_Error', error: VAULT_UNAVAILABLE };
    }
    if (overSoap) throw err;
    request.log.error({ err }, 'gateway error');
    return { code: 'Internal_Error', error: 'Server was unable to process request.' };
  }
}

/** The answer to a request in a content type the gateway does not read (or none). */
const TYPES_TAKEN = 'Send text/xml (SOAP 1.1), application/soap+xml (SOAP 1.2) or application/x-www-form-urlencoded (HTTP POST).';

/** A fault for a SOAP request, plain text for anything else (form posts, unknown types). */
function sendError(request: FastifyRequest, reply: FastifyReply, status: number, code: FaultCode, message: string) {
  const version = request.method === 'POST' ? soapVersionOf(request) : undefined;
  if (version) return reply.code(status).type(CONTENT_TYPE[version]).send(soapFault(version, code, message));
  return reply.code(status).type('text/plain; charset=utf-8').send(message);
}

/**
 * The gateway's own error mapping. Nothing a client sent is echoed except the SOAPAction of an
 * unknown operation; unexpected errors are logged and answered with a generic Server fault.
 */
function gatewayErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof SoapFault) return sendError(request, reply, error.status, error.faultCode, error.message);
  if (error instanceof XmlRequestError) {
    request.log.info({ problem: error.problem }, 'gateway request refused');
    return sendError(request, reply, 400, 'Client', error.message);
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return sendError(request, reply, 413, 'Client', `The request body is larger than the limit of ${GATEWAY_BODY_LIMIT / 1024} KiB.`);
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return sendError(request, reply, 415, 'Client', TYPES_TAKEN);
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 400 && status < 500) return sendError(request, reply, status, 'Client', 'The request could not be read.');
  const unavailable = findError(error, DatabaseUnavailableError);
  if (unavailable) {
    logDatabaseUnavailable(request, error, unavailable, undefined);
    return sendError(request, reply, 500, 'Server', DATABASE_UNAVAILABLE);
  }
  request.log.error({ err: error }, 'gateway error');
  return sendError(request, reply, 500, 'Server', 'Server was unable to process request.');
}

/** SOAPAction: the 1.1 header (quoted or not), or the 1.2 content type's action parameter. */
function soapAction(request: FastifyRequest, version: SoapVersion): string {
  let action = '';
  if (version === '1.2') {
    const m = /;\s*action\s*=\s*("([^"]*)"|[^;\s]+)/i.exec(String(request.headers['content-type'] ?? ''));
    action = m ? (m[2] ?? m[1] ?? '') : '';
  }
  if (!action) {
    const header = request.headers.soapaction;
    action = (Array.isArray(header) ? header[0] : header) ?? '';
  }
  return action.trim().replace(/^"(.*)"$/, '$1').trim();
}

/** Which operation a SOAP request asks for: by SOAPAction, or by the body element when there is none. */
function routeSoap(request: FastifyRequest, soap: SoapRequest, namespace: string): GatewayOperation {
  const action = soapAction(request, soap.version);
  const body = soap.operation;
  const inNamespace = sameNamespace(body.namespace, namespace);
  if (action) {
    const prefix = soapActionOf(namespace, '');
    const op = action.startsWith(prefix) ? findOperation(action.slice(prefix.length)) : undefined;
    if (!op) throw new SoapFault(500, 'Client', `Server did not recognize the value of HTTP Header SOAPAction: ${action.slice(0, 200)}.`);
    if (!inNamespace || body.localName !== op.name) {
      throw new SoapFault(500, 'Client', `The body element ${body.localName.slice(0, 100)} does not match the SOAPAction ${op.name} (expected ${op.name} in ${namespace}).`);
    }
    return op;
  }
  const op = inNamespace ? findOperation(body.localName) : undefined;
  if (!op || op.name !== body.localName) {
    throw new SoapFault(500, 'Client', `Server did not recognize the value of the request element ${body.localName.slice(0, 100)} in namespace ${body.namespace.slice(0, 200)}.`);
  }
  return op;
}

function formParams(entries: [string, string][]): Params {
  const params: Params = new Map();
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    const entry = params.get(key) ?? { name, values: [], structured: false };
    entry.values.push(value);
    params.set(key, entry);
  }
  return params;
}

/** The address clients should post to: this request's scheme and host, when the host is a plain host name. */
function serviceLocation(request: FastifyRequest, fallbackBase: string): string {
  const host = request.headers.host ?? '';
  if (/^([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/i.test(host)) return `${request.protocol}://${host}${GATEWAY_PATH}`;
  return `${fallbackBase}${GATEWAY_PATH}`;
}

export async function gatewayPlugin(app: FastifyInstance, opts: { services: Services }) {
  const { services } = opts;
  const { config } = services;
  const namespace = config.soapNamespace;

  app.setErrorHandler(gatewayErrorHandler);
  // Only the gateway's own types; parsing (and the XML hardening) happens before any handler runs.
  app.removeAllContentTypeParsers();
  const notUtf8 = () => new XmlRequestError('malformed', 'The request body is not UTF-8 text.');
  app.addContentTypeParser(SOAP_TYPES, { parseAs: 'buffer', bodyLimit: GATEWAY_BODY_LIMIT }, (request, body, done) => {
    try {
      const text = utf8Text(body as Buffer);
      if (text === undefined) throw notUtf8();
      done(null, readSoapRequest(text, String(request.headers['content-type'] ?? '')));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'buffer', bodyLimit: GATEWAY_BODY_LIMIT }, (_request, body, done) => {
    const entries = utf8FormEntries(body as Buffer);
    if (entries === undefined) return done(notUtf8(), undefined);
    done(null, formParams(entries));
  });

  if (config.nodeEnv === 'production') {
    app.addHook('onRequest', async (request, reply) => {
      if (!arrivedOverHttps(request)) {
        return sendError(request, reply, 403, 'Client', 'HTTPS is required: this gateway carries card and bank data.');
      }
    });
  }

  const hidden = { schema: { hide: true }, bodyLimit: GATEWAY_BODY_LIMIT };

  app.get(GATEWAY_PATH, hidden, async (request, reply) => {
    const query = Object.keys((request.query as Record<string, unknown>) ?? {}).map((k) => k.toLowerCase());
    if (query.includes('wsdl')) {
      return reply.type('text/xml; charset=utf-8').send(wsdlDocument(namespace, serviceLocation(request, config.publicBaseUrl)));
    }
    return reply.type('text/html; charset=utf-8').send(helpPage(namespace, GATEWAY_PATH));
  });

  app.post(GATEWAY_PATH, hidden, async (request, reply) => {
    const soap = request.body as SoapRequest | Params | undefined;
    if (soap === undefined) {
      // No body and no Content-Type: nothing was parsed, so there is no request to route.
      return sendError(request, reply, 415, 'Client', TYPES_TAKEN);
    }
    if (soap instanceof Map) {
      // Not a SOAP request, so no fault: this URL does not take forms (the mirror of a SOAP body
      // posted to /<Operation>), a 415 rather than a text/plain 500.
      return sendError(request, reply, 415, 'Client', `Form posts go to ${GATEWAY_PATH}/<Operation>; this URL takes text/xml (SOAP 1.1) or application/soap+xml (SOAP 1.2).`);
    }
    const op = routeSoap(request, soap, namespace);
    const result = await runOperation(request, services.gateway, op, soap.params, true);
    return reply.code(200).type(CONTENT_TYPE[soap.version]).send(soapResponse(soap.version, namespace, op.name, resultElements(result)));
  });

  app.post<{ Params: { operation: string } }>(`${GATEWAY_PATH}/:operation`, hidden, async (request, reply) => {
    const op = findOperation(request.params.operation);
    if (!op) {
      return reply.code(404).type('text/plain; charset=utf-8').send(`Unknown operation; the operations are ${['GetClientSessionID', 'GetToken', 'GetCheckToken'].join(', ')}.`);
    }
    if (!(request.body instanceof Map)) {
      return sendError(request, reply, 415, 'Client', `HTTP POST takes ${FORM_TYPE}; SOAP requests go to ${GATEWAY_PATH}.`);
    }
    const result = await runOperation(request, services.gateway, op, request.body as Params, false);
    return reply.code(200).type('text/xml; charset=utf-8').send(recurringResultDocument(namespace, result));
  });
}
