import { formatCents } from '../../domain/money.ts';
import type { PayLinkAfterResolution } from '../../modules/payments/held-outcome-service.ts';
import { type ProcessorOutcome, UNKNOWN_AFTER_MINUTES } from '../../modules/payments/processor-outcome.ts';
import { type Command, UsageError, requiredPositional } from '../command.ts';

const RESOLVE_USAGE =
  'pending resolve <PaymentGuid or refund/void id> (--approved --transaction-id <id> [--auth-code <code>] | --declined | --not-processed | --voided [--transaction-id <id>]) [--force]';
const DEFAULT_MINUTES = UNKNOWN_AFTER_MINUTES;
/** `pending list` found something: an exit code of its own, apart from 1 (the command failed). */
const FOUND_EXIT_CODE = 3;

function minutes(raw: unknown, usage: string): number {
  if (raw === undefined) return DEFAULT_MINUTES;
  if (typeof raw !== 'string' || !/^\d{1,6}$/.test(raw)) throw new UsageError(`--older-than must be a whole number of minutes, got "${String(raw)}"\nusage: payments ${usage}`);
  return Number(raw);
}

function outcome(values: Record<string, unknown>): ProcessorOutcome {
  const chosen = (['approved', 'declined', 'not-processed', 'voided'] as const).filter((k) => values[k] === true);
  if (chosen.length === 0) throw new UsageError(`say what the processor's records show: one of --approved, --declined, --not-processed, --voided\nusage: payments ${RESOLVE_USAGE}`);
  // Two outcomes given read as none given when the message asked for "one of" (an operator audit).
  if (chosen.length > 1) {
    throw new UsageError(`give only one of --approved, --declined, --not-processed, --voided (got ${chosen.map((k) => `--${k}`).join(' and ')})\nusage: payments ${RESOLVE_USAGE}`);
  }
  const kind = chosen[0]!;
  const transactionId = typeof values['transaction-id'] === 'string' ? values['transaction-id'].trim() : undefined;
  const authCode = typeof values['auth-code'] === 'string' ? values['auth-code'].trim() : undefined;
  if (authCode !== undefined && kind !== 'approved') throw new UsageError(`--auth-code goes with --approved only\nusage: payments ${RESOLVE_USAGE}`);
  if (kind === 'voided') return { kind, transactionId };
  if (kind !== 'approved') {
    if (transactionId !== undefined) throw new UsageError(`--transaction-id goes with --approved or --voided only\nusage: payments ${RESOLVE_USAGE}`);
    return { kind };
  }
  if (!transactionId) throw new UsageError(`--approved needs the processor's --transaction-id\nusage: payments ${RESOLVE_USAGE}`);
  return { kind, transactionId, authCode };
}

const PAY_LINK_AFTER: Record<PayLinkAfterResolution, string> = {
  completed: 'It was made on a pay link: the link is now completed with it (a recurring schedule the link asked for was not started: the card was never stored).',
  open: 'It was made on a pay link: nothing was charged, and the link takes payments again.',
  'not active': 'It was made on a pay link that is no longer active (cancelled meanwhile); nothing was charged and the link was left as it is.',
  'charged on an inactive link':
    'It was made on a pay link that is no longer active (cancelled meanwhile): the payer was charged for a link that takes no payment. The page would have voided it: void or refund this payment.',
};

/** Payments left Pending by a stop between the processor call and the record, and their resolution. */
export const pendingCommands: Command[] = [
  {
    name: 'pending list',
    summary: `list payments, refunds and voids whose outcome is unknown (still pending after --older-than minutes, default ${DEFAULT_MINUTES}); exit code ${FOUND_EXIT_CODE} when there are any`,
    usage: 'pending list [--older-than <minutes>]',
    options: { 'older-than': { type: 'string', value: '<minutes>', description: 'list only what has been pending this long', default: String(DEFAULT_MINUTES) } },
    async run(ctx, { values }) {
      const olderThan = minutes(values['older-than'], this.usage);
      const { pendingPayments } = await ctx.services();
      const found = await pendingPayments.list(olderThan);
      const count = found.payments.length + found.adjustments.length;
      if (ctx.json) {
        ctx.out(
          JSON.stringify({
            payments: found.payments.map((p) => ({ ...p, createdAt: p.createdAt.toISOString() })),
            refundsAndVoids: found.adjustments.map((a) => ({ ...a, requestedAt: a.requestedAt.toISOString() })),
          }),
        );
      } else if (count === 0) ctx.out(`Nothing has been pending for ${olderThan} minutes or more.`);
      else {
        ctx.out(`Pending for ${olderThan} minutes or more: look each up in its processor's records, then run payments ${RESOLVE_USAGE}`);
        if (found.payments.length > 0) ctx.out(`${found.payments.length} payment(s) (reference at the processor: the PaymentGuid):`);
        for (const p of found.payments) {
          const recurring = p.recurringProfileId ? `  recurring ${p.recurringProfileId} bill date ${p.billDate}` : '';
          const payLink = p.payLinkRef ? `  pay link ${p.payLinkRef} (takes no payment until resolved)` : '';
          ctx.out(`  ${p.paymentGuid}  ${p.createdAt.toISOString()}  ${p.method} ${formatCents(p.amountCents)} ${p.currency ?? ''}  ${p.partnerName} via ${p.processorName} (${p.adapter})${p.tranId ? `  TranId ${p.tranId}` : ''}${recurring}${payLink}`);
        }
        if (found.adjustments.length > 0) ctx.out(`${found.adjustments.length} refund(s) or void(s) (reference at the processor: their id):`);
        for (const a of found.adjustments) {
          ctx.out(`  ${a.adjustmentId}  ${a.requestedAt.toISOString()}  ${a.kind} of payment ${a.paymentGuid} (TransactionId ${a.originalTransactionId ?? '-'}) ${formatCents(a.amountCents)} ${a.currency ?? ''}  ${a.partnerName}`);
        }
      }
      // Monitoring can alert on the exit code.
      return count > 0 ? FOUND_EXIT_CODE : 0;
    },
  },
  {
    name: 'pending resolve',
    summary: "record what the processor's records say about a pending payment, refund or void: approved (with its transaction id), declined, not processed, or (a payment) approved then voided",
    usage: RESOLVE_USAGE,
    options: {
      approved: { type: 'boolean', description: 'the processor approved it (give its --transaction-id)' },
      declined: { type: 'boolean', description: 'the processor declined it' },
      'not-processed': { type: 'boolean', description: 'the processor has no record of it' },
      voided: { type: 'boolean', description: 'a payment the processor approved and then voided' },
      'transaction-id': { type: 'string', value: '<id>', description: "the processor's transaction id (with --approved, required; with --voided)" },
      'auth-code': { type: 'string', value: '<code>', description: "the processor's authorization code (with --approved)" },
      force: { type: 'boolean', description: `resolve one pending for less than ${UNKNOWN_AFTER_MINUTES} minutes (its call may still be answered)`, default: `only what has been pending ${UNKNOWN_AFTER_MINUTES} minutes or more` },
    },
    async run(ctx, { values, positionals }) {
      const id = requiredPositional(positionals, 0, 'the PaymentGuid or the refund or void id', this.usage);
      const answer = outcome(values);
      const { pendingPayments } = await ctx.services();
      const result = await pendingPayments.resolve(id, answer, { force: values.force === true });
      if (ctx.json) return ctx.out(JSON.stringify({ id, outcome: answer.kind, ...result }));
      const what = result.what === 'payment' ? `Payment ${id}` : `The ${result.what} ${id} of payment ${result.paymentGuid}`;
      ctx.out(`${what} recorded as ${answer.kind}; the payment is now PaymentResult ${result.paymentResult}, ProcessStatus ${result.processStatus}.`);
      if (result.payLink) ctx.out(PAY_LINK_AFTER[result.payLink]);
    },
  },
];
