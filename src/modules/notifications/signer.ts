import { createHmac } from 'node:crypto';

/** The header that carries the signatures. */
export const SIGNATURE_HEADER = 'Payments-Signature';
/** The header that carries the notification's unique id (its NotificationGuid): receivers de-duplicate by it. */
export const EVENT_ID_HEADER = 'Payments-Event-Id';

/**
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 of `t + "." + body` under each secret
 * given (the current one, and the previous one while a rotation is in its grace period), so a
 * receiver that knows either accepts it. The timestamp is signed too: a receiver can refuse old
 * replays.
 */
export function signatureHeader(body: string, secrets: readonly string[], unixSeconds: number): string {
  const signed = `${unixSeconds}.${body}`;
  return [`t=${unixSeconds}`, ...secrets.map((s) => `v1=${createHmac('sha256', s).update(signed, 'utf8').digest('hex')}`)].join(',');
}
