/**
 * npm run bench -- session
 * POST /api/ClientSession requests/s, and the cost of authentication: a trivial route behind the
 * AccessToken check against the same trivial route without it, in one run. The two trivial routes
 * are measured in alternating rounds (A B A B A B) and compared by their median, so that warm-up
 * and background noise fall on both alike.
 * Target: authentication adds at most 15 % (authed/open throughput >= 0.85).
 */
import { type LoadResult, load, startServer } from './lib/harness.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(options: { seconds: number }) {
  const server = await startServer();
  try {
    const { partner, token } = server.info;
    const open = () => load({ url: `${server.url}/api/probe/open`, seconds: Math.max(2, Math.round(options.seconds / 3)) });
    const authed = () => load({ url: `${server.url}/api/probe/authed`, headers: { AccessToken: token }, seconds: Math.max(2, Math.round(options.seconds / 3)) });
    await open();
    await authed();
    const rounds: { open: LoadResult; authed: LoadResult }[] = [];
    for (let i = 0; i < 3; i++) rounds.push({ open: await open(), authed: await authed() });
    const openRps = median(rounds.map((r) => r.open.requestsPerSec));
    const authedRps = median(rounds.map((r) => r.authed.requestsPerSec));
    const session = await load({
      url: `${server.url}/api/ClientSession`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ClientId: partner.ClientId, ClientSecret: partner.ClientSecret }),
      seconds: options.seconds,
    });
    const ratio = authedRps / openRps;
    return {
      store: server.info.store,
      clientSessionRequestsPerSec: session.requestsPerSec,
      clientSession: session,
      trivialOpenRequestsPerSec: { median: openRps, rounds: rounds.map((r) => r.open.requestsPerSec) },
      trivialAuthenticatedRequestsPerSec: { median: authedRps, rounds: rounds.map((r) => r.authed.requestsPerSec) },
      authenticatedToOpenRatio: Number(ratio.toFixed(3)),
      authOverheadPercent: Number(((1 - ratio) * 100).toFixed(1)),
      target: 'authOverheadPercent <= 15',
      meetsTarget: ratio >= 0.85,
    };
  } finally {
    await server.stop();
  }
}
