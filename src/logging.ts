import type { LoggerOptions } from 'pino';

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
] as const;

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const field of SECRET_FIELDS) {
    paths.push(field, `*.${field}`, `*.*.${field}`, `req.headers.${field.toLowerCase()}`);
  }
  return [...new Set(paths)];
}

/** Query-string parameters whose values never reach a log line. */
const SECRET_QUERY = new Set(SECRET_FIELDS.map((f) => f.toLowerCase()));

export function safeUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) {
    if (SECRET_QUERY.has(key.toLowerCase())) params.set(key, '[REDACTED]');
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
    },
  };
}
