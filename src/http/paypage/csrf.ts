import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.ts';
import { generateKey } from '../../modules/vault/keys.ts';
import { VaultError } from '../../platform/errors.ts';
import { Vault } from '../../modules/vault/vault.ts';

/**
 * A form token is good for this long after the page was served: over 20 hours, so the page sets
 * no time limit a payer must be warned of or able to extend (WCAG 2.2.1, its 20-hour exception).
 * With 2 hours, a slow payer was sent back to the form (an accessibility audit). The token is
 * bound to its link and sealed, and the origin check stands whatever its age.
 */
export const FORM_TOKEN_TTL_MS = 24 * 3600_000;

/**
 * How far in the future a form token's time may be: the page can be served by one server and
 * posted to another whose clock is behind, or the clock stepped back in between. With a minute,
 * servers two minutes apart refused their payers' forms as expired (a clock audit). The token is
 * sealed, so this only widens what a genuine page's token is good for.
 */
export const FORM_TOKEN_CLOCK_SKEW_MS = 10 * 60_000;

/**
 * CSRF protection of the page's forms, in two layers:
 * - a form token: the link id, the time and a random value sealed by the vault (AES-256-GCM, so
 *   it cannot be forged or moved to another link), good for FORM_TOKEN_TTL_MS. It needs no cookie,
 *   so it also works when the page is embedded in a partner's site (third-party cookies are
 *   blocked there);
 * - the browser's own word: a POST whose Sec-Fetch-Site (or else Origin) says it comes from
 *   another site is refused whatever its token.
 * Every server of one database shares the vault keys, so any of them accepts any form.
 */
export class FormTokens {
  readonly #vault: Vault;
  readonly #clock: Clock;
  /**
   * A key of this process alone, for form tokens while the vault cannot seal: its key file is
   * missing while stored tokens need it, and it makes no new one (src/modules/vault/key-check.ts).
   * The pages work meanwhile (they failed with 500: a review); their forms are good on this
   * server only, which the embedded store, the one with a key file, is anyway.
   */
  readonly #ownKey: Vault;

  constructor(vault: Vault, clock: Clock) {
    this.#vault = vault;
    this.#clock = clock;
    this.#ownKey = new Vault({ kind: 'memory', current: generateKey() }, clock);
  }

  issue(payLinkId: string): string {
    const plain = `${payLinkId}.${this.#clock.now().getTime()}.${randomBytes(9).toString('base64url')}`;
    try {
      return this.#vault.seal(plain, context(payLinkId)).ciphertext;
    } catch (err) {
      if (!(err instanceof VaultError)) throw err;
      return this.#ownKey.seal(plain, context(payLinkId)).ciphertext;
    }
  }

  verify(payLinkId: string, token: string | undefined): boolean {
    if (!token || token.length > 512) return false;
    // Only keys the vault holds: a forged key id must not make it look for new keys.
    const keyId = token.split(':')[1];
    if (!keyId) return false;
    const vault = keyId === this.#ownKey.currentKeyId() ? this.#ownKey : this.#vault;
    let plain: string;
    try {
      // keyIds() throws while a file vault has no key file yet (a fresh install before its first
      // seal): then no token can be genuine.
      if (!vault.keyIds().includes(keyId)) return false;
      plain = vault.open(token, context(payLinkId));
    } catch {
      return false;
    }
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
