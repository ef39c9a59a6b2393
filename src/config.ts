import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseCutoff } from './domain/settlement-cutoff.ts';
import { parseRetryDays } from './domain/billing-profile.ts';
import { absoluteHttpUrlProblem } from './domain/http-url.ts';

/**
 * One typed configuration, read from the environment once. Every variable is listed in the
 * README's configuration table with its default; keep the two in step.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Unset: the embedded PGlite database in `dataDir`. */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** Transaction reports read here when set (DATABASE_REPLICA_URL: a PostgreSQL read replica of DATABASE_URL). */
  databaseReplicaUrl: string | undefined;
  /** Transaction report exports running at once per process (REPORT_EXPORT_CONCURRENCY); each holds a database connection. */
  reportExportConcurrency: number;
  /** How long one export may run before it is cut off (REPORT_EXPORT_MAX_MINUTES). */
  reportExportMaxMinutes: number;
  logLevel: string;
  publicBaseUrl: string;
  /** Seed the demo environment on first start. */
  demo: boolean;
  /** Trust X-Forwarded-* headers from a reverse proxy. */
  /**
   * Which proxies' X-Forwarded-* headers to believe: false (none), a hop count (1: the proxy in
   * front of us), or a comma-separated list of addresses/CIDRs. Never "everyone": the left of
   * X-Forwarded-For is whatever the client wrote.
   */
  trustProxy: boolean | number | string;
  /** POST /api/ClientSession attempts per client IP per minute. */
  sessionRateLimitPerMinute: number;
  /** SOAP gateway: GetClientSessionID attempts per client IP per minute (each costs a memory-hard hash). */
  gatewayLoginRateLimitPerMinute: number;
  /** Requests per client IP per minute on unauthenticated search (CharitySearch). */
  publicRateLimitPerMinute: number;
  nodeEnv: string;
  /** Simulated processor latency per call, in milliseconds. */
  simulatorLatencyMs: number;
  /** How long a processor call may take before its outcome counts as unknown. */
  processorTimeoutMs: number;
  /** Daily settlement cut-off, minutes after midnight UTC (SETTLEMENT_CUTOFF, HH:MM). */
  settlementCutoffMinutes: number;
  /** Vault key (base64, 32 bytes); unset: a key file generated in `dataDir`. */
  vaultKey: string | undefined;
  /** Older vault keys that still decrypt (comma-separated VAULT_OLD_KEYS). */
  vaultOldKeys: string[];
  /** SOAP gateway: lifetime of a ClientSessionID. */
  gatewaySessionTtlMs: number;
  /** SOAP gateway: the XML namespace of its operations. */
  soapNamespace: string;
  /** Recurring billing: run the billing worker in the server process (BILLING_WORKER). */
  billingWorker: boolean;
  /** Recurring billing: how often the in-process worker looks for due profiles. */
  billingIntervalMs: number;
  /** On SIGTERM/SIGINT: how long requests in flight may finish before open connections are closed (SHUTDOWN_GRACE). */
  shutdownGraceMs: number;
  /** A request (headers and body) must arrive within this; a slower one is answered 408 and closed. */
  requestTimeoutMs: number;
  /** Recurring billing: days after a bill date on which a declined charge is retried (BILLING_RETRY_DAYS). */
  billingRetryDays: number[];
  /** Pay page: the CSP frame-ancestors source list (FRAME_ANCESTORS); `'none'` forbids embedding. */
  frameAncestors: string;
  /** Pay page: submissions per pay link, and per client IP, in any 10 minutes. */
  payLinkSubmitLimitPerLink: number;
  payLinkSubmitLimitPerIp: number;
  /** The provider's name and home address: the pay page's default PoweredByText and PoweredByUrl. */
  providerName: string;
  providerUrl: string;
  /** Surface A: how long an Idempotency-Key and its answer are kept (IDEMPOTENCY_TTL, hours). */
  idempotencyTtlMs: number;
  /**
   * Authorize.Net processors with sandbox credentials send to this (AUTHORIZENET_SANDBOX_URL;
   * Authorize.Net's sandbox by default): a proxy, or a local fake of the API in tests. Production
   * credentials always go to Authorize.Net's production endpoint.
   */
  authorizeNetSandboxUrl: string | undefined;
  /** PEM files: set both to serve HTTPS. */
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /**
   * Prometheus metrics (METRICS_PORT) on an HTTP server of their own; undefined: no metrics at all.
   * `explicit`: the operator set the port, so a port already in use stops the start (the
   * development default only warns: two services on one machine must both start).
   */
  metrics: { port: number; explicit: boolean } | undefined;
  /** LOG_FORMAT: JSON lines or readable ones; undefined: readable in a terminal outside production, JSON otherwise. */
  logFormat: 'json' | 'pretty' | undefined;
  /** Notifications: run the delivery worker in the server process (NOTIFICATION_WORKER). */
  notificationWorker: boolean;
  /** Notifications: a receiver's 2xx must come within this (NOTIFICATION_TIMEOUT, seconds). */
  notificationTimeoutMs: number;
  /** Notifications: URLs whose host is a loopback or private address are allowed (NOTIFICATION_ALLOW_PRIVATE; development and tests). */
  notificationAllowPrivate: boolean;
  /** Notifications: deliveries in flight at once per process (NOTIFICATION_CONCURRENCY). */
  notificationConcurrency: number;
  /** Notifications: the wait before the first retry (NOTIFICATION_FIRST_RETRY, seconds); each next one is 2.6 times longer, up to a day. */
  notificationFirstRetryMs: number;
  /** Notifications: kept this long after their creation once their delivery has ended (NOTIFICATION_RETENTION_DAYS). */
  notificationRetentionDays: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'off', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be on or off, got "${env[name]}"`);
}

function cutoff(env: Env, name: string, fallback: string): number {
  const raw = env[name]?.trim() || fallback;
  const minutes = parseCutoff(raw);
  if (minutes === undefined) throw new ConfigError(`${name} must be a time of day in UTC as HH:MM (00:00-23:59), got "${raw}"`);
  return minutes;
}

/**
 * A CSP source list for frame-ancestors: 'none', 'self', or http(s) origins (host wildcards
 * allowed under a domain). A scheme-only source (`https:`) is refused: it would let every site
 * frame the page; so is a wildcard over a top-level domain (`https://*.com`).
 */
function frameAncestors(env: Env, name: string): string {
  const raw = env[name]?.trim() || "'none'";
  const sources = raw.split(/\s+/);
  // A host wildcard needs two labels under it (*.example.org, not *.org).
  const source = /^(?:'self'|https?:\/\/(?:\*\.[a-z0-9-]+(?:\.[a-z0-9-]+)+|[a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(?:\d{1,5}|\*))?)$/i;
  if (sources.includes("'none'") ? sources.length !== 1 : !sources.every((s) => source.test(s))) {
    throw new ConfigError(
      `${name} must be 'none', or a space-separated list of 'self' and http(s) origins (https://shop.example, https://*.example.org); ` +
        `a scheme alone (https:) would let every site frame the page; got "${raw}"`,
    );
  }
  return sources.join(' ');
}

function retryDays(env: Env, name: string, fallback: string): number[] {
  const raw = env[name]?.trim() || fallback;
  const days = parseRetryDays(raw);
  if (!days) throw new ConfigError(`${name} must be increasing whole days from 1 to 365, comma-separated (1,3,7), or none, got "${raw}"`);
  return days;
}

function base64Key(name: string, value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text) || Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64').length !== 32) {
    throw new ConfigError(`${name} must be a 32-byte key in base64 (make one with: payments vault new-key)`);
  }
  return text;
}

/** PUBLIC_BASE_URL: an absolute http(s) URL, written without a trailing slash (links are made from it). */
function baseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http or https URL, got "${raw}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !/^https?:\/\//i.test(raw)) {
    throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http or https URL, got "${raw}"`);
  }
  if (/[?#\s]/.test(raw) || url.username || url.password) {
    throw new ConfigError(`PUBLIC_BASE_URL must be a plain base URL (no query, fragment, spaces or credentials), got "${raw}"`);
  }
  // Written as the URL parser reads it: links are made by appending paths to it.
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** PROVIDER_URL: the pay page's default "Powered by" link, held to the rules of the PoweredByUrl it stands in for. */
function providerUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const problem = absoluteHttpUrlProblem(raw);
  if (problem) throw new ConfigError(`PROVIDER_URL ${problem}, got "${raw}"`);
  return raw;
}

/** AUTHORIZENET_SANDBOX_URL: an absolute http(s) URL (the whole endpoint, path included). */
function sandboxUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const problem = absoluteHttpUrlProblem(raw);
  if (problem) throw new ConfigError(`AUTHORIZENET_SANDBOX_URL ${problem}, got "${raw}"`);
  return raw;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(raw: string | undefined): string {
  const level = raw?.trim().toLowerCase() || 'info';
  if (!LOG_LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return level;
}

function trustProxy(raw: string | undefined): false | number | string {
  const value = raw?.trim() ?? '';
  if (value === '' || /^(0|false|off|no)$/i.test(value)) return false;
  if (/^(1|true|on|yes)$/i.test(value)) return 1;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((v) => v.trim());
  if (entries.every((v) => /^[0-9a-f.:]+(\/\d{1,3})?$/i.test(v))) return entries.join(',');
  throw new ConfigError(`TRUST_PROXY must be off, on (one proxy hop), a number of hops, or proxy addresses/CIDRs separated by commas, got "${raw}"`);
}

const DEFAULT_METRICS_PORT = 9464;

/**
 * METRICS_PORT: on in development (9464, the usual Prometheus exporter port), off in production
 * unless set; `off` turns it off. Never the public port: partners must not read the metrics.
 */
function metrics(env: Env, nodeEnv: string, port: number): Config['metrics'] {
  const raw = env.METRICS_PORT?.trim();
  if (raw && /^(off|false|no)$/i.test(raw)) return undefined;
  if (!raw) return nodeEnv === 'production' || port === DEFAULT_METRICS_PORT ? undefined : { port: DEFAULT_METRICS_PORT, explicit: false };
  if (!/^\d+$/.test(raw)) throw new ConfigError(`METRICS_PORT must be a port number or off, got "${raw}"`);
  const value = int(env, 'METRICS_PORT', DEFAULT_METRICS_PORT, 0, 65535);
  if (value !== 0 && value === port) throw new ConfigError(`METRICS_PORT must not be PORT (${port}): the metrics would be served to partners`);
  return { port: value, explicit: true };
}

function logFormat(raw: string | undefined): 'json' | 'pretty' | undefined {
  const value = raw?.trim().toLowerCase();
  if (!value) return undefined;
  if (value === 'json' || value === 'pretty') return value;
  throw new ConfigError(`LOG_FORMAT must be json or pretty, got "${raw}"`);
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const tlsCertFile = env.TLS_CERT_FILE?.trim() || undefined;
  const tlsKeyFile = env.TLS_KEY_FILE?.trim() || undefined;
  if (!tlsCertFile !== !tlsKeyFile) throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE go together: set both or neither');
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const databaseReplicaUrl = env.DATABASE_REPLICA_URL?.trim() || undefined;
  if (databaseReplicaUrl && !/^postgres(ql)?:\/\//.test(databaseReplicaUrl)) {
    throw new ConfigError('DATABASE_REPLICA_URL must start with postgres:// or postgresql://');
  }
  // The embedded database has no replica: reports read it like everything else.
  if (databaseReplicaUrl && !databaseUrl) throw new ConfigError('DATABASE_REPLICA_URL is a read replica of DATABASE_URL: set DATABASE_URL too');
  const nodeEnv = env.NODE_ENV?.trim() || 'development';
  const publicBaseUrl = baseUrl(env.PUBLIC_BASE_URL?.trim() || `${tlsCertFile ? 'https' : 'http'}://localhost:${port}`);
  return {
    port,
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir: resolve(env.DATA_DIR?.trim() || './data'),
    databaseUrl,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseReplicaUrl,
    reportExportConcurrency: int(env, 'REPORT_EXPORT_CONCURRENCY', 2, 1, 100),
    reportExportMaxMinutes: int(env, 'REPORT_EXPORT_MAX_MINUTES', 60, 1, 1440),
    logLevel: logLevel(env.LOG_LEVEL),
    publicBaseUrl,
    // A production deployment never gets the demo partners unless it asks for them.
    demo: bool(env, 'DEMO', (env.NODE_ENV?.trim() || 'development') !== 'production'),
    trustProxy: trustProxy(env.TRUST_PROXY),
    sessionRateLimitPerMinute: int(env, 'SESSION_RATE_LIMIT', 120, 1),
    gatewayLoginRateLimitPerMinute: int(env, 'GATEWAY_LOGIN_RATE_LIMIT', 30, 1),
    publicRateLimitPerMinute: int(env, 'PUBLIC_RATE_LIMIT', 600, 1),
    nodeEnv,
    simulatorLatencyMs: int(env, 'SIMULATOR_LATENCY_MS', 0, 0, 60_000),
    processorTimeoutMs: int(env, 'PROCESSOR_TIMEOUT', 20, 1, 600) * 1000,
    settlementCutoffMinutes: cutoff(env, 'SETTLEMENT_CUTOFF', '02:00'),
    vaultKey: base64Key('VAULT_KEY', env.VAULT_KEY),
    vaultOldKeys: (env.VAULT_OLD_KEYS ?? '').split(',').map((k, i) => base64Key(`VAULT_OLD_KEYS entry ${i + 1}`, k)).filter((k) => k !== undefined),
    gatewaySessionTtlMs: int(env, 'GATEWAY_SESSION_TTL', 20, 1, 24 * 60) * 60_000,
    // Exactly as configured: clients generated from the original WSDL expect its very namespace.
    soapNamespace: env.SOAP_NAMESPACE?.trim() || 'http://www.tpisoft.com/Admin/ws',
    billingWorker: bool(env, 'BILLING_WORKER', true),
    billingIntervalMs: int(env, 'BILLING_INTERVAL', 300, 5, 86_400) * 1000,
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE', 30, 1, 3600) * 1000,
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT', 60, 1, 3600) * 1000,
    billingRetryDays: retryDays(env, 'BILLING_RETRY_DAYS', '1,3,7'),
    frameAncestors: frameAncestors(env, 'FRAME_ANCESTORS'),
    payLinkSubmitLimitPerLink: int(env, 'PAYLINK_SUBMIT_LIMIT_PER_LINK', 10, 1),
    payLinkSubmitLimitPerIp: int(env, 'PAYLINK_SUBMIT_LIMIT_PER_IP', 30, 1),
    providerName: env.PROVIDER_NAME?.trim() || 'Payments',
    providerUrl: providerUrl(env.PROVIDER_URL?.trim()) ?? publicBaseUrl,
    idempotencyTtlMs: int(env, 'IDEMPOTENCY_TTL', 24, 1, 720) * 3_600_000,
    authorizeNetSandboxUrl: sandboxUrl(env.AUTHORIZENET_SANDBOX_URL?.trim()),
    tlsCertFile,
    tlsKeyFile,
    metrics: metrics(env, nodeEnv, port),
    logFormat: logFormat(env.LOG_FORMAT),
    notificationWorker: bool(env, 'NOTIFICATION_WORKER', true),
    notificationTimeoutMs: int(env, 'NOTIFICATION_TIMEOUT', 10, 1, 60) * 1000,
    notificationAllowPrivate: bool(env, 'NOTIFICATION_ALLOW_PRIVATE', false),
    notificationConcurrency: int(env, 'NOTIFICATION_CONCURRENCY', 64, 1, 1000),
    notificationFirstRetryMs: int(env, 'NOTIFICATION_FIRST_RETRY', 10, 1, 3600) * 1000,
    notificationRetentionDays: int(env, 'NOTIFICATION_RETENTION_DAYS', 90, 30, 3650),
  };
}

/** Tests' vault key: random per process, never written anywhere. */
const TEST_VAULT_KEY = randomBytes(32).toString('base64');

/** A configuration for tests and tools: defaults, with overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ DATA_DIR: '/nonexistent', DEMO: 'off', VAULT_KEY: TEST_VAULT_KEY, METRICS_PORT: 'off' }), ...overrides };
}
