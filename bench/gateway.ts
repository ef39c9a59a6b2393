/**
 * npm run bench -- gateway
 * GetToken over SOAP 1.1, requests/s: our gateway against the same operation served by
 * node-soap's own server (soap.listen, with our WSDL) calling the same tokenization service, in
 * one run, each in its own server process on the same kind of store.
 * Target: at least 2x node-soap's throughput.
 */
import { load, startServer } from './lib/harness.ts';

const PATH = '/admin/ws/recurring.asmx';

function getTokenEnvelope(namespace: string, clientSessionId: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ` +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>` +
    `<GetToken xmlns="${namespace}"><ClientSessionID>${clientSessionId}</ClientSessionID><CcAccountNum>4242424242424242</CcAccountNum>` +
    `<CcExpDate>1230</CcExpDate><CcNameOnCard>Bench Donor</CcNameOnCard><CcStreet>1 Main St</CcStreet><CcZip>12345</CcZip>` +
    `<FirstName>Bench</FirstName><LastName>Donor</LastName></GetToken></soap:Body></soap:Envelope>`
  );
}

async function measure(mode: 'fastify' | 'node-soap', seconds: number) {
  const server = await startServer({ GATEWAY_BENCH_MODE: mode, LOG_LEVEL: 'warn' }, 'bench/lib/gateway-server.ts');
  try {
    const info = server.info as unknown as { clientSessionId: string; namespace: string; store: string };
    const request = {
      url: `${server.url}${PATH}`,
      method: 'POST' as const,
      headers: { 'content-type': 'text/xml; charset=utf-8', SOAPAction: `"${info.namespace}/GetToken"` },
      body: getTokenEnvelope(info.namespace, info.clientSessionId),
    };
    // One checked call first: both stacks must really tokenize, or the comparison means nothing.
    const probe = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body });
    const text = await probe.text();
    if (probe.status !== 200 || !/<code>OK<\/code>/.test(text) || !/<CcInfoKey>\d+<\/CcInfoKey>/.test(text)) {
      throw new Error(`${mode}: GetToken did not succeed (${probe.status}): ${text.slice(0, 500)}`);
    }
    await load({ ...request, seconds: 3 });
    const result = await load({ ...request, seconds });
    return { ...result, store: info.store, rssMb: Math.round(server.rssMb()) };
  } finally {
    await server.stop();
  }
}

export async function run(options: { seconds: number }) {
  const ours = await measure('fastify', options.seconds);
  const nodeSoap = await measure('node-soap', options.seconds);
  const ratio = ours.requestsPerSec / nodeSoap.requestsPerSec;
  return {
    store: ours.store,
    operation: 'GetToken over SOAP 1.1 (10 connections)',
    gatewayRequestsPerSec: ours.requestsPerSec,
    nodeSoapRequestsPerSec: nodeSoap.requestsPerSec,
    ratio: Number(ratio.toFixed(2)),
    gateway: ours,
    nodeSoap,
    target: 'ratio >= 2',
    meetsTarget: ratio >= 2,
  };
}
