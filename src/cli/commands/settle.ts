import { parseCalendarDate } from '../../domain/billing-dates.ts';
import { formatCents } from '../../domain/money.ts';
import { ValidationError } from '../../platform/errors.ts';
import type { SettlementRun } from '../../modules/adjustments/settlement-service.ts';
import { type Command, UsageError } from '../command.ts';
import { refuseWaitingDatabase } from './database.ts';

const USAGE = 'settle [--as-of <date-time>]';
const EARLIEST_YEAR = 2000;

/**
 * `--as-of`: an ISO 8601 date-time with a time of day; without a zone it is UTC (the cut-off is in
 * UTC too). A bare date is refused: "as of 2026-11-21" could mean its start or its end.
 */
export function parseAsOf(text: string): Date {
  const m = /^(\d{4}-\d{2}-\d{2})[T ]((\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?)(Z|[+-](\d{2}):(\d{2}))?$/i.exec(text.trim());
  // Date parses 2026-02-30 as March 2 and 24:00 as the next day: a moment the operator never typed.
  const real =
    m !== null && parseCalendarDate(m[1]!).ok && Number(m[3]) <= 23 && Number(m[4]) <= 59 && Number(m[5] ?? 0) <= 59 && Number(m[7] ?? 0) <= 23 && Number(m[8] ?? 0) <= 59;
  const date = real ? new Date(`${m[1]}T${m[2]}${m[6] ?? 'Z'}`) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw new UsageError(`--as-of must be a date-time such as 2026-11-21T02:00:00Z (UTC when no zone is given), got "${text}"\nusage: payments ${USAGE}`);
  }
  // A mistyped year (0026): a batch dated before any payment this service made, whose moment
  // JavaScript then read back as 2026 (a time audit).
  if (date.getUTCFullYear() < EARLIEST_YEAR) {
    throw new UsageError(`--as-of must be in ${EARLIEST_YEAR} or later, got "${text}"\nusage: payments ${USAGE}`);
  }
  return date;
}

function describe(run: SettlementRun): string[] {
  const b = run.batch;
  const lines = [
    run.created
      ? `Closed settlement batch #${b.batchNo} as of ${b.cutoffAt.toISOString()}.`
      : b.state === 'closing'
        ? `Settlement batch #${b.batchNo} as of ${b.cutoffAt.toISOString()} is being closed by another run (since ${b.closedAt.toISOString()}); nothing was changed.`
        : `Settlement batch #${b.batchNo} as of ${b.cutoffAt.toISOString()} was already closed (at ${b.closedAt.toISOString()}); nothing was changed.`,
    `  payments settled: ${b.settledCount}   ACH refunds completed: ${b.achRefundsCompleted}`,
  ];
  for (const [currency, t] of Object.entries(b.totals).sort(([a], [c]) => a.localeCompare(c))) {
    lines.push(`  ${currency}: settled ${t.settledCount} for ${formatCents(t.settledCents)}; refunded ${t.refundedCount} for ${formatCents(t.refundedCents)}`);
  }
  return lines;
}

export const settleCommands: Command[] = [
  {
    name: 'settle',
    summary: 'close a settlement batch now: settle every authorized payment up to the moment (--as-of, default now)',
    usage: USAGE,
    options: {
      'as-of': { type: 'string', value: '<date-time>', description: 'settle what was authorized up to this moment: 2026-11-21T02:00:00Z (UTC when no zone is given; not in the future)', default: 'now' },
    },
    async run(ctx, args) {
      const raw = args.values['as-of'];
      const asOf = typeof raw === 'string' ? parseAsOf(raw) : undefined;
      const services = await ctx.services();
      await refuseWaitingDatabase(services);
      const run = await services.settlement.settle({ asOf, trigger: 'operator' }).catch((err: unknown) => {
        // The service refuses a moment in the future (by its clock, so here too): a bad argument, exit 2
        // like every other (an operator audit found exit 1, which the README keeps for a failed command).
        if (err instanceof ValidationError && err.violations.every((v) => v.field === 'asOf')) throw new UsageError(`--as-of: ${err.message}\nusage: payments ${USAGE}`);
        throw err;
      });
      if (ctx.json) {
        const b = run.batch;
        return ctx.out(
          JSON.stringify({
            created: run.created,
            batchId: b.id,
            batchNo: b.batchNo,
            asOf: b.cutoffAt.toISOString(),
            state: b.state,
            closedAt: b.closedAt.toISOString(),
            trigger: b.trigger,
            settledCount: b.settledCount,
            achRefundsCompleted: b.achRefundsCompleted,
            totals: b.totals,
          }),
        );
      }
      for (const line of describe(run)) ctx.out(line);
    },
  },
];
