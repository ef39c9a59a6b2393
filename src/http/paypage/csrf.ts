import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.ts';
import type { FormTokenKey } from '../../modules/vault/vault-service.ts';

/**
 * A form token is good for this long after the page was served: over 20 hours, so the page sets
 * no time limit a payer must be warned of or able to extend (WCAG 2.2.1, its 20-hour exception).
 * The token is bound to its link and sealed, and the origin check stands whatever its age.
 */
export const FORM_TOKEN_TTL_MS = 24 * 3600_000;

/**
 * How far in the future a form token's time may be: the page can be served by one server and
 * posted to another whose clock is behind, or the clock stepped back in between; servers a few
 * minutes apart must accept each other's forms. The token is sealed, so this only widens what a
 * genuine page's token is good for.
 */
export const FORM_TOKEN_CLOCK_SKEW_MS = 10 * 60_000;

/**
 * CSRF protection of the page's forms, in two layers:
 * - a form token: the link id, the time and a random value sealed with the vault's keys
 *   (AES-256-GCM, so it cannot be forged or moved to another link), good for FORM_TOKEN_TTL_MS. It
 *   needs no cookie, so it also works when the page is embedded in a partner's site (third-party
 *   cookies are blocked there);
 * - the browser's own word: a POST whose Sec-Fetch-Site (or else Origin) says it comes from
 *   another site is refused whatever its token.
 * Every server of one database shares the vault keys, so any of them accepts any form (while the
 * vault cannot seal, `FormTokenKey` uses a key of this process: see the vault module).
 */
export class FormTokens {
  readonly #key: FormTokenKey;
  readonly #clock: Clock;

  constructor(key: FormTokenKey, clock: Clock) {
    this.#key = key;
    this.#clock = clock;
  }

  issue(payLinkId: string): string {
    return this.#key.seal(`${payLinkId}.${this.#clock.now().getTime()}.${randomBytes(9).toString('base64url')}`, context(payLinkId));
  }

  verify(payLinkId: string, token: string | undefined): boolean {
    if (!token || token.length > 512) return false;
    const plain = this.#key.open(token, context(payLinkId));
    if (plain === undefined) return false;
    const [id, issuedAt] = plain.split('.');
    const age = this.#clock.now().getTime() - Number(issuedAt);
    return id === payLinkId && Number.isFinite(age) && age >= -FORM_TOKEN_CLOCK_SKEW_MS && age <= FORM_TOKEN_TTL_MS;
  }
}

function context(payLinkId: string): string {
  return `paylink-form:${payLinkId}`;
}

/**
 * What the browser says of a form POST's origin: Sec-Fetch-Site when sent (every current browser),
 * else Origin against the request's own host; 'unknown' when it sends neither (not a browser:
 * such a post is judged by its form token alone). A 'cross' post is refused whatever its token.
 */
export function originOf(request: FastifyRequest): 'same' | 'cross' | 'unknown' {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin' ? 'same' : 'cross';
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return 'unknown';
  try {
    // Through URL on both sides, so `host:80` and `host` compare equal for http.
    return new URL(origin).host === new URL(`${request.protocol}://${request.host}`).host ? 'same' : 'cross';
  } catch {
    return 'cross';
  }
}
