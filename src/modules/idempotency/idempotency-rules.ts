import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The longest key taken, in characters (the unescaped text of the quoted form). */
export const MAX_KEY_LENGTH = 255;

/** Printable ASCII, space included (a field value's ends are trimmed by HTTP). */
const PLAIN_KEY = /^[\x20-\x7e]+$/;
/** The draft's form: a Structured Field string (RFC 9651 3.3.3), `"..."` with `\"` and `\\` escapes. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\\"])*)"$/;

export type KeyReading = { key: string } | { invalid: string };

/**
 * An Idempotency-Key header's key: 1 to 255 printable ASCII characters, as Stripe's clients send
 * it (a UUID is the recommended form), or the same written as the draft's quoted string
 * (draft-ietf-httpapi-idempotency-key-header-07), which is the same key: `"abc"` is `abc`.
 * `values`: each header line's value (the header may be sent once).
 */
export function readIdempotencyKey(values: readonly string[]): KeyReading | undefined {
  if (values.length === 0) return undefined;
  if (values.length > 1) return { invalid: 'must be sent once' };
  const raw = values[0]!.trim();
  const quoted = SF_STRING.exec(raw);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : raw;
  if (key.length === 0) return { invalid: 'must not be empty' };
  if (key.length > MAX_KEY_LENGTH) return { invalid: `must be at most ${MAX_KEY_LENGTH} characters` };
  if (!quoted && (raw.startsWith('"') || !PLAIN_KEY.test(key))) return { invalid: 'must be printable ASCII characters (a UUID is recommended), or a quoted string' };
  return { key };
}

/** What identifies a request for its key: the same key with another request is refused (422). */
export interface RequestParts {
  method: string;
  /** The route (its URL pattern), not the URL as written: letter case and a trailing slash do not make another request. */
  route: string;
  query: unknown;
  body: unknown;
}

/**
 * SHA-256 (hex) of the request in the JSON Canonicalization Scheme (RFC 8785): the order of
 * properties and the spacing of the body do not make another request. The caller takes out or
 * truncates what must not be stored, even hashed (a card number, a CVV).
 */
export function requestFingerprint(parts: RequestParts): string {
  const text = canonicalize({ method: parts.method.toUpperCase(), route: parts.route, query: parts.query ?? null, body: parts.body ?? null }) ?? '';
  return createHash('sha256').update(text).digest('hex');
}
