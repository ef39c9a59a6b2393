// Every table of the service. Each feature keeps its tables in a file of its own.
export * from './foundation.ts';
export * from './tokens.ts';
export * from './charities.ts';
export * from './payments.ts';
export * from './recurring.ts';
export * from './paylinks.ts';
export * from './lifecycle.ts';
export * from './gateway.ts';
export * from './idempotency.ts';
export * from './processors.ts';
export * from './notifications.ts';
