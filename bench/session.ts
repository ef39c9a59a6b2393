/**
 * npm run bench -- session
 * POST /api/ClientSession requests/s, and the cost of authentication: a trivial route behind the
 * AccessToken check against the same trivial route without it, in one run.
 * Target: authentication adds at most 15 % (authed/open throughput >= 0.85).
 */
import { load, startServer } from './lib/harness.ts';

export async function run(options: { seconds: number }) {
  const server = await startServer();
  try {
    const { partner, token } = server.info;
    const body = JSON.stringify({ ClientId: partner.ClientId, ClientSecret: partner.ClientSecret });
    // Warm up both paths (JIT, token cache) before measuring.
    await load({ url: `${server.url}/api/probe/open`, seconds: 2 });
    await load({ url: `${server.url}/api/probe/authed`, headers: { AccessToken: token }, seconds: 2 });
    const open = await load({ url: `${server.url}/api/probe/open`, seconds: options.seconds });
    const authed = await load({ url: `${server.url}/api/probe/authed`, headers: { AccessToken: token }, seconds: options.seconds });
    const session = await load({
      url: `${server.url}/api/ClientSession`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      seconds: options.seconds,
    });
    const ratio = authed.requestsPerSec / open.requestsPerSec;
    return {
      store: server.info.store,
      clientSessionRequestsPerSec: session.requestsPerSec,
      clientSession: session,
      trivialOpen: open,
      trivialAuthenticated: authed,
      authenticatedToOpenRatio: Number(ratio.toFixed(3)),
      authOverheadPercent: Number(((1 - ratio) * 100).toFixed(1)),
      target: 'authOverheadPercent <= 15',
      meetsTarget: ratio >= 0.85,
    };
  } finally {
    await server.stop();
  }
}
