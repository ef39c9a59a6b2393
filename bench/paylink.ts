/**
 * npm run bench -- paylink
 * The hosted pay page: time to first byte (p95, one payer at a time; target at most 20 ms), page
 * weight (the document is the whole page: no other resource is fetched; target at most 100 KB),
 * the page under 10 concurrent connections, and POST /api/paylink requests/s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, startServer } from './lib/harness.ts';
import { measureTtfb } from './lib/paylink-ttfb.ts';

export async function run(options: { seconds: number }) {
  // The page's form tokens are sealed by the vault: keep its key file out of ./data.
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-paylink-'));
  const server = await startServer({ DATA_DIR: dataDir, PAYLINK_SUBMIT_LIMIT_PER_LINK: '1000000', PAYLINK_SUBMIT_LIMIT_PER_IP: '1000000' });
  try {
    const { partner, token } = server.info;
    const linkBody = JSON.stringify({
      ApiKey: partner.ApiKey,
      RedirectUrl: 'https://partner.example/thanks',
      PaymentLines: [
        { Amount: '50.00', Type: 1, PayFee: true },
        { Amount: '25.00', Type: 4, ExternalLineId: 'ticket' },
      ],
      FirstName: 'Ada',
      LastName: 'Lovelace',
      Email: 'ada@example.org',
      Street: '1 Main St',
      City: 'Albany',
      State: 'NY',
      Zip: '12207',
      Country: 'US',
      ShowTransactionId: true,
      Theme: 'body{background:#f7f7fb} .pl-button{background-color:#5b1a8a;border-color:#5b1a8a} h1{font-family:Georgia,serif}',
    });
    const headers = { 'content-type': 'application/json', AccessToken: token };
    const created = await fetch(`${server.url}/api/paylink`, { method: 'POST', headers, body: linkBody });
    if (created.status !== 200) throw new Error(`POST /api/paylink answered ${created.status}: ${await created.text()}`);
    const pageUrl = `${server.url}/paylink/${((await created.json()) as { PayLinkUrl: string }).PayLinkUrl.split('/').pop()}`;

    const html = await (await fetch(pageUrl)).text();
    const pageWeightBytes = Buffer.byteLength(html);
    // What a browser would fetch with the page: src attributes and <link href> (not <a href>, a navigation).
    const subresources = [...html.matchAll(/<(?:script|img|link|iframe|source|video|audio|embed|object|input)\b[^>]*\s(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1]!)
      .filter((u) => !u.startsWith('data:'));

    const ttfb = await measureTtfb(pageUrl, { seconds: options.seconds });
    await load({ url: pageUrl, seconds: 2 });
    const pageUnderLoad = await load({ url: pageUrl, seconds: options.seconds });
    await load({ url: `${server.url}/api/paylink`, method: 'POST', headers, body: linkBody, seconds: 2 });
    const create = await load({ url: `${server.url}/api/paylink`, method: 'POST', headers, body: linkBody, seconds: options.seconds });
    return {
      store: server.info.store,
      pageTtfbP95Ms: ttfb.p95Ms,
      pageWeightBytes,
      pageWeightKb: Number((pageWeightBytes / 1024).toFixed(1)),
      subresourcesFetched: subresources,
      createPayLinkRequestsPerSec: create.requestsPerSec,
      pageTtfb: ttfb,
      pageUnder10Connections: pageUnderLoad,
      createPayLink: create,
      target: 'pageTtfbP95Ms <= 20 and pageWeightKb <= 100 (nothing else fetched)',
      meetsTarget: ttfb.p95Ms <= 20 && pageWeightBytes <= 100 * 1024 && subresources.length === 0,
      rssMb: Number(server.rssMb().toFixed(0)),
    };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
