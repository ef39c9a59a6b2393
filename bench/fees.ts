/**
 * npm run bench -- fees
 * 1. GET /api/fee requests/s against the trivial authenticated route /api/probe/authed in the same
 *    run (target: at least 70 % of it).
 * 2. The pure quote function (src/domain/fees.ts) in quotes per second on one core, on a mix of
 *    lines (card and ACH, PayFee on and off, overrides, tips and taxes) (target: 200,000/s).
 */
import type { FeeSchedule } from '../src/domain/fee-schedule.ts';
import { type FeeLineInput, type FeeQuoteInput, quoteFees } from '../src/domain/fees.ts';
import { load, startServer } from './lib/harness.ts';

const demo = (groupId: number): FeeSchedule => ({
  groupId,
  cardFeeRate: '2.9',
  platformCommissionRate: '1',
  maxCommissionRate: '5',
  perTransFeeCents: 30,
  cardTypeFeesCents: { '1': 25, '3': 10 },
  achFeeRate: '0.8',
  achFeeCapCents: 500,
});

/** A deterministic spread of one-line quotes, as GET /api/fee and single-line payments make them. */
function mix(count: number): FeeQuoteInput[] {
  const schedules = new Map([1, 2, 3, 4].map((g) => [g, demo(g)]));
  const inputs: FeeQuoteInput[] = [];
  let seed = 42;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  for (let i = 0; i < count; i++) {
    const line: FeeLineInput = {
      transactionSourceGroupId: 1 + next(4),
      amountCents: 100 + next(5_000_000),
      payFee: next(2) === 0,
      commissionRateOverride: next(4) === 0 ? String(next(8)) + '.5' : undefined,
      cardProcessingFeeOverride: next(8) === 0 ? '3.25' : undefined,
      tipCents: next(3) === 0 ? next(2_000) : 0,
      taxCents: next(3) === 0 ? next(1_000) : 0,
    };
    inputs.push({ lines: [line], schedules, paymentMethodTypeId: [undefined, 1, 3, 7][next(4)] });
  }
  return inputs;
}

/** Quotes per second of `quote` over `inputs`, for about `seconds` (after a warm-up). */
function rate(inputs: FeeQuoteInput[], seconds: number, quote: (input: FeeQuoteInput) => unknown): number {
  const spin = (ms: number) => {
    let n = 0;
    const start = performance.now();
    let now = start;
    while (now - start < ms) {
      for (let i = 0; i < 1_000; i++) quote(inputs[(n + i) % inputs.length]!);
      n += 1_000;
      now = performance.now();
    }
    return (n / (now - start)) * 1_000;
  };
  spin(500);
  return Math.round(spin(seconds * 1_000));
}

export async function run(options: { seconds: number }) {
  const pureSeconds = Math.min(options.seconds, 5);
  const inputs = mix(10_000);
  const mixed = rate(inputs, pureSeconds, quoteFees);
  // A schedule object the engine has not seen before costs its parsing once; payments that read
  // the contract afresh in their transaction pay that on every quote.
  const freshSchedules = rate(inputs, pureSeconds, (input) =>
    quoteFees({ ...input, schedules: new Map([...input.schedules].map(([g, s]) => [g, { ...s }])) }),
  );
  const pure = {
    quotesPerSec: mixed,
    quotesPerSecFreshSchedules: freshSchedules,
    target: 'quotesPerSec >= 200000',
    meetsTarget: mixed >= 200_000,
  };

  const server = await startServer();
  try {
    const { token } = server.info;
    const headers = { AccessToken: token };
    const feeUrl = `${server.url}/api/fee?Amount=100.00&TransactionSourceGroupId=1&PayFee=true`;
    const probe = await fetch(feeUrl, { headers });
    if (probe.status !== 200) throw new Error(`GET /api/fee answered ${probe.status}: ${await probe.text()}`);
    // Warm up both paths (JIT, token cache, schedule cache) before measuring.
    await load({ url: `${server.url}/api/probe/authed`, headers, seconds: 2 });
    await load({ url: feeUrl, headers, seconds: 2 });
    const authed = await load({ url: `${server.url}/api/probe/authed`, headers, seconds: options.seconds });
    const fee = await load({ url: feeUrl, headers, seconds: options.seconds });
    const ratio = fee.requestsPerSec / authed.requestsPerSec;
    return {
      store: server.info.store,
      feeRequestsPerSec: fee.requestsPerSec,
      getFee: fee,
      trivialAuthenticated: authed,
      feeToTrivialRatio: Number(ratio.toFixed(3)),
      httpTarget: 'feeToTrivialRatio >= 0.70',
      meetsHttpTarget: ratio >= 0.7,
      pureQuoteFunction: pure,
    };
  } finally {
    await server.stop();
  }
}
