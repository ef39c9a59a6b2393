import pino from 'pino';
import type { BackgroundJob } from '../background.ts';
import { loggerOptions } from '../logging.ts';
import type { Services } from '../services/index.ts';

/**
 * The billing worker as a server process runs it (BILLING_WORKER=on, the default): every
 * BILLING_INTERVAL seconds it bills what is due today. Any number of server processes may run it
 * on one PostgreSQL database; `npx payments billing run` does the same once, for operators.
 */
export function billingJob(services: Services): BackgroundJob {
  services.billing.useLogger(pino(loggerOptions(services.config.logLevel)));
  return {
    name: 'recurring billing',
    everyMs: services.config.billingIntervalMs,
    run: () => services.billing.run(),
  };
}
