import { parseCalendarDate, utcDate } from '../../domain/billing-dates.ts';
import { type Command, type CommandOption, UsageError } from '../command.ts';
import { refuseWaitingDatabase } from './database.ts';

const BATCH_SIZE_DEFAULT = 100;
const CONCURRENCY_DEFAULT = 8;
const asOfOption = (description: string): CommandOption => ({ type: 'string', value: 'yyyy-MM-dd', description, default: 'today, in UTC' });

function positiveInt(values: Record<string, unknown>, name: string, fallback: number, usage: string): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d{1,5}$/.test(raw) || Number(raw) < 1) throw new UsageError(`--${name} must be a whole number from 1, got "${String(raw)}"\nusage: payments ${usage}`);
  return Number(raw);
}

function asOf(values: Record<string, unknown>, usage: string): string | undefined {
  const raw = values['as-of'];
  if (raw === undefined) return undefined;
  const parsed = parseCalendarDate(String(raw));
  if (!parsed.ok) throw new UsageError(`--as-of must be a date yyyy-MM-dd, got "${String(raw)}"\nusage: payments ${usage}`);
  return parsed.date;
}

/** Recurring billing for operators: the same run the server's billing worker makes. */
export const billingCommands: Command[] = [
  {
    name: 'billing run',
    summary: 'charge every recurring profile due today (or as of a date), exactly once per bill date',
    usage: 'billing run [--as-of yyyy-MM-dd [--ahead]] [--batch-size <n>] [--concurrency <n>]',
    options: {
      'as-of': asOfOption('charge the profiles due on or before this day'),
      ahead: { type: 'boolean', description: 'allow an --as-of after today (charges payers before their bill dates)' },
      'batch-size': { type: 'string', value: '<n>', description: 'profiles claimed at a time', default: String(BATCH_SIZE_DEFAULT) },
      concurrency: { type: 'string', value: '<n>', description: 'charges made at once', default: String(CONCURRENCY_DEFAULT) },
    },
    async run(ctx, { values }) {
      const date = asOf(values, this.usage);
      // A date after today charges payers before their bill dates (a mistyped year, months
      // early): only when the operator says so.
      const today = utcDate(new Date());
      if (date && date > today && values.ahead !== true) {
        throw new UsageError(`--as-of ${date} is after today (${today}, UTC): it would charge payers before their bill dates; add --ahead if that is meant\nusage: payments ${this.usage}`);
      }
      const batchSize = positiveInt(values, 'batch-size', BATCH_SIZE_DEFAULT, this.usage);
      const concurrency = positiveInt(values, 'concurrency', CONCURRENCY_DEFAULT, this.usage);
      const services = await ctx.services();
      await refuseWaitingDatabase(services);
      const summary = await services.billing.run({ asOf: date, batchSize, concurrency });
      if (ctx.json) ctx.out(JSON.stringify(summary));
      else {
        ctx.out(`Billing run as of ${summary.asOf} (worker ${summary.workerId}):`);
        ctx.out(`  profiles claimed ${summary.claimed}, charges ${summary.charged}: approved ${summary.approved}, declined ${summary.declined}`);
        ctx.out(`  suspended ${summary.suspended}, completed ${summary.completed}, reconciled ${summary.reconciled}, deferred ${summary.deferred}, errors ${summary.errors}`);
        ctx.out(`  in ${summary.durationMs} ms`);
      }
      if (summary.errors > 0) throw new Error(`${summary.errors} profile(s) could not be billed; their leases expire and the next run takes them up again`);
    },
  },
  {
    name: 'billing status',
    summary: 'count recurring profiles by state, and those due as of a date',
    usage: 'billing status [--as-of yyyy-MM-dd]',
    options: { 'as-of': asOfOption('count the profiles due on or before this day') },
    async run(ctx, { values }) {
      const date = asOf(values, this.usage);
      const { billing } = await ctx.services();
      const status = await billing.status(date);
      if (ctx.json) return ctx.out(JSON.stringify(status));
      ctx.out(`Recurring profiles as of ${status.asOf}:`);
      for (const [state, count] of Object.entries(status.byStatus)) ctx.out(`  ${state.padEnd(10)} ${count}`);
      ctx.out(`  due now    ${status.due}`);
      ctx.out(`  leased     ${status.leased}`);
    },
  },
];
