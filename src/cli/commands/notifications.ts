import { notificationJob } from '../../modules/notifications/delivery-job.ts';
import { GUID } from '../../platform/ids.ts';
import type { NotificationRecord, NotificationStatus } from '../../modules/notifications/notification-service.ts';
import { type Command, UsageError } from '../command.ts';

const STATUSES: NotificationStatus[] = ['waiting', 'pending', 'delivered', 'failed', 'cancelled'];

function partnerOption(values: Record<string, unknown>, usage: string, required: boolean): string | undefined {
  const raw = values.partner;
  if (raw === undefined) {
    if (required) throw new UsageError(`--partner is required\nusage: payments ${usage}`);
    return undefined;
  }
  if (typeof raw !== 'string' || !GUID.test(raw.trim())) throw new UsageError(`--partner must be a partner's ClientId (a GUID)\nusage: payments ${usage}`);
  return raw.trim().toLowerCase();
}

function target(values: Record<string, unknown>, usage: string): { partnerId: string } | { configId: number } {
  const partner = partnerOption(values, usage, false);
  const config = values.config;
  if ((partner === undefined) === (config === undefined)) throw new UsageError(`give one of --partner or --config\nusage: payments ${usage}`);
  if (partner !== undefined) return { partnerId: partner };
  if (typeof config !== 'string' || !/^\d{1,9}$/.test(config)) throw new UsageError(`--config must be a NotificationConfigId\nusage: payments ${usage}`);
  return { configId: Number(config) };
}

function line(n: NotificationRecord): string {
  const when = n.deliveredAt ? `delivered ${n.deliveredAt.toISOString()}` : n.status === 'pending' ? `next try ${n.nextAttemptAt.toISOString()}` : n.status;
  const error = n.lastError ? `  last error: ${n.lastError}` : '';
  return `  ${n.id}  ${n.status}  payment ${n.paymentGuid} (${n.paymentId})  config ${n.configId}  retries ${n.retryCount}/${n.maxRetries}  ${when}  ${n.url}${error}`;
}

const toJson = (n: NotificationRecord) => ({
  ...n,
  payload: undefined,
  createdAt: n.createdAt.toISOString(),
  modifiedAt: n.modifiedAt.toISOString(),
  deliveredAt: n.deliveredAt?.toISOString() ?? null,
  nextAttemptAt: n.nextAttemptAt.toISOString(),
});

const PAUSE_OPTIONS = {
  partner: { type: 'string', value: '<ClientId>', description: "every notification URL of the partner" },
  config: { type: 'string', value: '<NotificationConfigId>', description: 'one notification URL' },
} as const;

/** Partners' notifications: the outbox, its deliveries, pauses and signing secrets. */
export const notificationCommands: Command[] = [
  {
    name: 'notifications list',
    summary: 'list notifications, the latest first',
    usage: 'notifications list [--partner <ClientId>] [--status <status>] [--payment <PaymentGuid>] [--limit <n>]',
    options: {
      partner: { type: 'string', value: '<ClientId>', description: "only the partner's" },
      status: { type: 'string', value: STATUSES.join('|'), description: 'only those in this state' },
      payment: { type: 'string', value: '<PaymentGuid>', description: "only the payment's" },
      limit: { type: 'string', value: '<n>', description: 'at most this many', default: '50' },
    },
    async run(ctx, { values }) {
      const partnerId = partnerOption(values, this.usage, false);
      const status = values.status as string | undefined;
      if (status !== undefined && !STATUSES.includes(status as NotificationStatus)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}\nusage: payments ${this.usage}`);
      const payment = values.payment as string | undefined;
      if (payment !== undefined && !GUID.test(payment)) throw new UsageError(`--payment must be a PaymentGuid\nusage: payments ${this.usage}`);
      const limitRaw = (values.limit as string | undefined) ?? '50';
      if (!/^\d{1,5}$/.test(limitRaw) || Number(limitRaw) < 1) throw new UsageError(`--limit must be a whole number from 1\nusage: payments ${this.usage}`);
      const { notifications } = await ctx.services();
      const found = await notifications.list({ partnerId, status: status as NotificationStatus | undefined, paymentGuid: payment?.toLowerCase(), limit: Number(limitRaw) });
      if (ctx.json) ctx.out(JSON.stringify({ notifications: found.map(toJson) }));
      else if (found.length === 0) ctx.out('No notifications.');
      else {
        ctx.out(`${found.length} notification(s):`);
        for (const n of found) ctx.out(line(n));
      }
    },
  },
  {
    name: 'notifications redeliver',
    summary: 'send delivered or failed notifications again now (same event id, retries afresh)',
    usage: 'notifications redeliver <NotificationId>...',
    async run(ctx, { positionals }) {
      if (positionals.length === 0 || positionals.some((p) => !/^\d{1,15}$/.test(p))) throw new UsageError(`name the notifications by NotificationId\nusage: payments ${this.usage}`);
      const { notifications } = await ctx.services();
      const { redelivered, unchanged } = await notifications.redeliver(positionals.map(Number), undefined);
      if (ctx.json) ctx.out(JSON.stringify({ redelivered: redelivered.map((n) => n.id), unchanged: unchanged.map((n) => ({ id: n.id, status: n.status })) }));
      else {
        ctx.out(`${redelivered.length} notification(s) due again now${redelivered.length ? `: ${redelivered.map((n) => n.id).join(', ')}` : ''}.`);
        for (const n of unchanged) ctx.out(`  ${n.id} left as it is: ${n.status === 'cancelled' ? 'its URL was removed' : 'it is on its way already'}.`);
        ctx.out('A running server delivers them; or run payments notifications deliver.');
      }
    },
  },
  {
    name: 'notifications pause',
    summary: "hold a partner's notifications (or one URL's): none are lost, they wait until resume",
    usage: 'notifications pause (--partner <ClientId> | --config <NotificationConfigId>)',
    options: PAUSE_OPTIONS,
    async run(ctx, { values }) {
      const { notificationConfigs } = await ctx.services();
      const changed = await notificationConfigs.setPaused(target(values, this.usage), true);
      ctx.out(ctx.json ? JSON.stringify({ paused: changed }) : `${changed} notification URL(s) paused.`);
    },
  },
  {
    name: 'notifications resume',
    summary: 'deliver again what a pause held',
    usage: 'notifications resume (--partner <ClientId> | --config <NotificationConfigId>)',
    options: PAUSE_OPTIONS,
    async run(ctx, { values }) {
      const { notificationConfigs, notificationWorker } = await ctx.services();
      const changed = await notificationConfigs.setPaused(target(values, this.usage), false);
      notificationWorker.wake();
      ctx.out(ctx.json ? JSON.stringify({ resumed: changed }) : `${changed} notification URL(s) resumed.`);
    },
  },
  {
    name: 'notifications deliver',
    summary: 'deliver the notifications due now, once, in this process; with --follow, keep delivering until SIGTERM (a delivery process beside servers run with NOTIFICATION_WORKER=off)',
    usage: 'notifications deliver [--follow]',
    options: { follow: { type: 'boolean', description: 'keep delivering, woken by the outbox, until SIGTERM or SIGINT' } },
    async run(ctx, { values }) {
      const { notificationWorker, store } = await ctx.services();
      if (!values.follow) {
        const attempts = await notificationWorker.deliverDue();
        ctx.out(ctx.json ? JSON.stringify({ attempts }) : `${attempts} delivery attempt(s) made.`);
        return;
      }
      // The server's own job: woken by the outbox's NOTIFY, polling besides; a failed run starts again.
      const job = notificationJob(notificationWorker, store);
      const stopping = new AbortController();
      const stop = () => {
        stopping.abort();
        job.stop?.();
      };
      ctx.stop.addEventListener('abort', stop);
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      ctx.out(ctx.json ? JSON.stringify({ delivering: true }) : 'Delivering notifications until SIGTERM or SIGINT.');
      try {
        if (ctx.stop.aborted) stop();
        while (!stopping.signal.aborted) {
          await job.run().catch(() => new Promise((resolve) => setTimeout(resolve, job.everyMs)));
        }
      } finally {
        ctx.stop.removeEventListener('abort', stop);
        process.off('SIGTERM', stop);
        process.off('SIGINT', stop);
      }
    },
  },
  {
    name: 'notifications secret rotate',
    summary: "make a new signing secret for a partner and print it once; the previous one signs too for 24 hours",
    usage: 'notifications secret rotate --partner <ClientId>',
    options: { partner: { type: 'string', value: '<ClientId>', description: 'the partner', required: true } },
    async run(ctx, { values }) {
      const partnerId = partnerOption(values, this.usage, true)!;
      const { notificationConfigs, partners } = await ctx.services();
      await partners.getPartner(partnerId);
      const info = await notificationConfigs.rotateSecret(partnerId);
      if (ctx.json) ctx.out(JSON.stringify({ signingSecret: info.secret, createdAt: info.createdAt.toISOString(), previousExpiresAt: info.previousExpiresAt?.toISOString() ?? null }));
      else {
        ctx.out(`New signing secret (shown this once; give it to the partner over a safe channel): ${info.secret}`);
        if (info.previousExpiresAt) ctx.out(`The previous secret signs too until ${info.previousExpiresAt.toISOString()}.`);
      }
    },
  },
];
