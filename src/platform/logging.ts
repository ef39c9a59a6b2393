import { createHash } from 'node:crypto';
import { DatabaseUnavailableError, InvalidStoredValueError } from './errors.ts';
import pino, { type BaseLogger, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from 'pino';

/**
 * Fields that hold secrets. Every place a log line could carry one of them is redacted: the
 * top level, nested objects and request bodies. Later features add their fields here.
 */
export const SECRET_FIELDS = [
  'ClientSecret', 'clientSecret', 'AccessToken', 'accessToken', 'accesstoken', 'Token', 'token',
  'ApiKey', 'apiKey', 'Password', 'password', 'CardNum', 'cardNum', 'CVNum', 'cvNum', 'cvv',
  'CheckAccountNumber', 'checkAccountNumber', 'CcAccountNum', 'ccAccountNum', 'CkAccountNum',
  'ckAccountNum', 'BankAccountNum', 'bankAccountNum', 'accountNumber', 'cardNumber', 'pan',
  'ResponseToken', 'responseToken', 'authorization', 'cookie', 'ExternalPaymentData',
  'CsrfToken', 'csrfToken',
  'VAULT_KEY', 'vaultKey',
  'VAULT_OLD_KEYS', 'vaultOldKeys', 'ClientSessionID', 'clientSessionId', 'clientsessionid', 'ccaccountnum',
  'ckaccountnum', 'bankaccountnum', 'plain', 'secretCiphertext', 'passwordHash',
  'PayLinkId', 'payLinkId',
  // Issue 30: a processor's credentials at its acquirer (Authorize.Net's transaction key).
  'transactionKey', 'TransactionKey', 'merchantAuthentication',
] as const;

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const field of SECRET_FIELDS) {
    paths.push(field, `*.${field}`, `*.*.${field}`, `req.headers.${field.toLowerCase()}`);
  }
  return [...new Set(paths)];
}

/**
 * Query-string parameters whose values may reach a log line: those the service's routes read
 * (surface A's documented parameters, the gateway's documentation pages, the pay page's notice),
 * none of them personal data or a secret. Any other parameter is logged by name with its value
 * redacted: a client that puts an e-mail address or a payer's name in a URL must not get it
 * logged (an audit of the logs found `Email=` and a live `PayLinkUrl=` in request lines).
 */
const LOGGED_QUERY = new Set(
  [
    'processorGuid', 'mKey', 'IntegrationSource', 'Amount', 'TransactionSourceGroupId', 'PayFee', 'ProcessorGuid', 'CharityId',
    'OrganizationGuid', 'IntegrationSourceGuid', 'TokenGuid', 'CommissionRateOverride', 'CardProcessingFeeOverride', 'Tip', 'Tax',
    'PaymentMethodTypeId', 'CreditCardTypeId', 'RecurringProfileGuid', 'Date', 'BillingFrequency', 'Name', 'EIN', 'CharitySource',
    'City', 'State', 'PageIndex', 'PageSize', 'SortColumn', 'SortDesc', 'wsdl', 'op', 'disco', 'notice',
  ].map((name) => name.toLowerCase()),
);
const SECRET_QUERY = new Set(SECRET_FIELDS.map((f) => f.toLowerCase()));

/** `http://host/path?q` (a request in absolute form, as proxies send it) as `/path?q`. */
function originForm(url: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  if (!absolute) return url;
  const rest = url.slice(absolute[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** A short, stable stand-in for a secret that log readers may need to correlate. */
export function fingerprint(value: string): string {
  return `#${createHash('sha256').update(value).digest('base64url').slice(0, 10)}`;
}

/**
 * A URL fit for a log line: query values redacted but for the parameters in LOGGED_QUERY, and
 * the pay link id in `/paylink/<id>` (the only key of a hosted page) replaced by its fingerprint,
 * also when the request line gives the URL in absolute form (`GET http://host/paylink/<id>`,
 * which Node serves as the page and logged as sent: an audit of the logs found it).
 */
export function safeUrl(requested: string): string {
  let url = originForm(requested);
  const q0 = url.indexOf('?');
  const path = q0 < 0 ? url : url.slice(0, q0);
  // The router decodes the path: /%70aylink/<id> is the page too, and must not log its id.
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Not decodable: the router refuses it (400) and the path is logged as sent.
  }
  const page = /^\/+(paylink)\/+([^/]+)(.*)$/i.exec(decoded);
  if (page) url = `/${page[1]}/${fingerprint(page[2]!)}${page[3]}${q0 < 0 ? '' : url.slice(q0)}`;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) {
    const name = key.toLowerCase();
    if (SECRET_QUERY.has(name) || !LOGGED_QUERY.has(name)) params.set(key, '[REDACTED]');
  }
  return `${url.slice(0, q)}?${params.toString()}`;
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: redactPaths(), censor: '[REDACTED]' },
    serializers: {
      req(req: { method: string; url: string; id: string; ip?: string }) {
        return { method: req.method, url: safeUrl(req.url), id: req.id, ip: req.ip };
      },
      res(res: { statusCode: number }) {
        return { statusCode: res.statusCode };
      },
      err: safeError,
    },
  };
}

/**
 * A database error's text without the values it quotes: the failed query's parameters
 * ("params: ..."), quoted input ("invalid input syntax for type uuid: \"...\"") and key values
 * ("Key (x)=(...)"). For log lines and trace spans alike.
 */
export function maskQuotedValues(text: string): string {
  return text
    .split('\nparams:')[0]!
    .replace(/"[^"\n]*"/g, '"[REDACTED]"')
    .replace(/\(([^()\n]*)\)=\(([^()\n]*)\)/g, '($1)=([REDACTED])');
}

/**
 * Errors without the values they quote. A database error's message carries the failed query's
 * parameters ("params: ...") and PostgreSQL quotes the offending input ("invalid input syntax
 * for type uuid: \"...\"", "Key (x)=(...)"): redaction by key path cannot reach inside a string,
 * so the message is cut to its first line and quoted values are masked, here and in the stack.
 */
export function safeError(err: unknown) {
  const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  const clean = (text: unknown) => (typeof text === 'string' ? maskQuotedValues(text) : text);
  // The error's own message: pino's already ends with its causes', which are added once below.
  const own = err instanceof Error ? err.message : out.message;
  out.message = clean(typeof own === 'string' ? own.split('\n')[0] : own);
  // A failed query's SQL is in the code, its values must not be logged: what is worth logging is
  // why it failed, the cause's message and code (an operator audit found only the masked SQL).
  if (typeof out.message === 'string' && out.message.startsWith('Failed query:')) out.message = 'Failed query';
  let cause = (err as { cause?: unknown })?.cause;
  // The database layer's translation of a driver error says nothing the driver's own does not.
  while ((cause instanceof DatabaseUnavailableError || cause instanceof InvalidStoredValueError) && cause.cause instanceof Error) cause = cause.cause;
  if (cause instanceof Error) {
    out.message = `${String(out.message)}: ${String(clean(cause.message.split('\n')[0]))}`;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && out.code === undefined) out.code = code;
  }
  if (typeof out.stack === 'string') {
    const lines = out.stack.split('\n');
    out.stack = [clean(lines[0]), ...lines.slice(1).filter((l) => /^\s+at /.test(l))].join('\n');
  }
  // `hint` too: a trigger's RAISE can put row values there (an audit of the logs).
  for (const key of ['detail', 'hint', 'where', 'query', 'params', 'parameters', 'internalQuery']) delete out[key];
  if (out.cause && typeof out.cause === 'object') out.cause = safeError(out.cause);
  return out;
}

/** What the services log through: any pino logger (the server's, the CLI's, a test's). */
export type Logger = Pick<BaseLogger, 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'>;

/** The process's own logger, which the HTTP server writes its request lines to too. */
export type RootLogger = PinoLogger;

/** The most log text kept in memory while stdout's reader is slow: beyond it, lines are dropped. */
const MAX_BUFFERED_LOG = 16 * 1024 * 1024;

/** The stdout destinations made here, for `settleLogs`. */
const stdoutDestinations = new Set<ReturnType<typeof pino.destination>>();

/**
 * Log lines for stdout, written asynchronously: a reader that is slow or stopped reading never
 * blocks the service, and at most MAX_BUFFERED_LOG waits for it (then lines are dropped).
 */
export function stdoutDestination(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 0, maxLength: MAX_BUFFERED_LOG });
  stdoutDestinations.add(destination);
  return destination;
}

/**
 * Gives the log lines still buffered for stdout up to `ms` to be written, then drops the rest: a
 * process that stops must not wait for ever on a reader that stopped reading (pino's own flush at
 * exit writes synchronously and retries for as long as the pipe is full).
 */
export async function settleLogs(ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (const destination of stdoutDestinations) {
    // sonic-boom says what it still holds only in these fields (its flush() does not wait for an
    // asynchronous write in progress).
    const state = destination as unknown as { _writing: boolean; _len: number };
    while ((state._writing || state._len > 0) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    destination.flushSync = () => {};
  }
}

/** A pino logger with the service's redaction and serializers, writing to `destination` (stdout by default). */
export function createLogger(level: string, destination: DestinationStream = stdoutDestination()): PinoLogger {
  return pino(loggerOptions(level), destination);
}

/**
 * Log lines for a person at a terminal (LOG_FORMAT=pretty, or a terminal outside production):
 * each JSON line pino makes, redacted as always, rewritten by pino-pretty before it is written
 * (to stdout's destination by default): the time, the level, the message, and the rest of the
 * line's fields after it. A request's two lines read `--> POST /api/payment` and
 * `<-- 201 POST /api/payment 12 ms`.
 */
export async function prettyDestination(options: { colorize: boolean; destination?: DestinationStream }): Promise<DestinationStream> {
  const { prettyFactory } = (await import('pino-pretty')).default;
  const prettify = prettyFactory({
    colorize: options.colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,req,res,responseTime',
    singleLine: true,
    messageFormat: requestLine,
  });
  const destination = options.destination ?? stdoutDestination();
  return {
    write(line: string) {
      destination.write(prettify(line));
    },
  };
}

/** Fastify's request lines as an access log reads them; any other line's message as it is. */
function requestLine(log: Record<string, unknown>, messageKey: string): string {
  const message = String(log[messageKey] ?? '');
  const req = log.req as { method?: string; url?: string } | undefined;
  const res = log.res as { statusCode?: number } | undefined;
  if (message === 'incoming request' && req) return `--> ${req.method} ${req.url}`;
  if ((message === 'request completed' || message === 'request errored') && res) {
    const took = typeof log.responseTime === 'number' ? ` ${Math.round(log.responseTime)} ms` : '';
    return `<-- ${res.statusCode}${log.route ? ` ${String(log.route)}` : ''}${took}${message === 'request errored' ? ' (errored)' : ''}`;
  }
  return message;
}

/** LOG_FORMAT when set; otherwise readable lines in a terminal outside production, JSON lines elsewhere. */
export function prettyLogs(format: 'json' | 'pretty' | undefined, environment: { nodeEnv: string; terminal: boolean }): boolean {
  if (format !== undefined) return format === 'pretty';
  return environment.terminal && environment.nodeEnv !== 'production';
}
