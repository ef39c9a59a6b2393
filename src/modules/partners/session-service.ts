import type { Clock } from '../../platform/clock.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { Rule } from '../../domain/rules.ts';
import type { Ids } from '../../platform/ids.ts';
import { digestsEqual, sha256, verifySecret } from '../../platform/secrets.ts';
import type { Db } from '../../platform/database/database.ts';
import { accessTokens, partners } from '../../platform/database/schema/index.ts';
import { violation } from '../../platform/errors.ts';
import { and, eq, gt, lt } from '../../platform/database/drizzle.ts';

/** The spec: an access token expires exactly 5 hours after it is issued. */
export const TOKEN_LIFETIME_MS = 5 * 60 * 60 * 1000;
/** How long a process trusts its memory of a token before asking the database again. */
const CACHE_RECHECK_MS = 60_000;
const CACHE_MAX_ENTRIES = 50_000;

export interface IssuedSession {
  token: string;
  clientId: string;
  expiresAt: Date;
}

interface CachedToken {
  partner: AuthenticatedPartner;
  expiresAt: number;
  checkedAt: number;
}

export class SessionService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ids: Ids;
  /** Keyed by token hash. Keeps authentication off the database for repeated calls. */
  readonly #cache = new Map<string, CachedToken>();

  constructor(db: Db, clock: Clock, ids: Ids) {
    this.#db = db;
    this.#clock = clock;
    this.#ids = ids;
  }

  /**
   * Exchanges a partner's ClientId and ClientSecret for an access token. An unknown client and
   * a wrong secret fail the same way, after the same work.
   */
  async createSession(clientId: string, clientSecret: string): Promise<IssuedSession> {
    const [partner] = await this.#db
      .select({ id: partners.id, hash: partners.clientSecretHash, status: partners.status })
      .from(partners)
      .where(eq(partners.id, clientId));
    const ok = await verifySecret(clientSecret, partner?.hash);
    if (!ok || !partner || partner.status !== 'active') {
      throw violation(Rule.AuthenticationFailed, undefined, 'The ClientId and ClientSecret do not authenticate.');
    }
    const token = this.#ids.secret(32);
    const issuedAt = this.#clock.now();
    const expiresAt = new Date(issuedAt.getTime() + TOKEN_LIFETIME_MS);
    await this.#db.insert(accessTokens).values({ tokenHash: sha256(token), partnerId: partner.id, issuedAt, expiresAt });
    return { token, clientId: partner.id, expiresAt };
  }

  /** The partner an access token stands for, or undefined when it is unknown or expired. */
  async authenticate(token: string): Promise<AuthenticatedPartner | undefined> {
    if (token.length < 20 || token.length > 200) return undefined;
    const hash = sha256(token);
    const now = this.#clock.now().getTime();
    const cached = this.#cache.get(hash);
    if (cached && now - cached.checkedAt < CACHE_RECHECK_MS && now >= cached.checkedAt) {
      return now < cached.expiresAt ? cached.partner : undefined;
    }
    const [row] = await this.#db
      .select({
        tokenHash: accessTokens.tokenHash,
        expiresAt: accessTokens.expiresAt,
        id: partners.id,
        name: partners.name,
        kind: partners.kind,
        status: partners.status,
      })
      .from(accessTokens)
      .innerJoin(partners, eq(partners.id, accessTokens.partnerId))
      .where(eq(accessTokens.tokenHash, hash));
    if (!row || row.status !== 'active' || !digestsEqual(row.tokenHash, hash)) {
      this.#cache.delete(hash);
      return undefined;
    }
    const partner: AuthenticatedPartner = { id: row.id, name: row.name, kind: row.kind };
    if (this.#cache.size >= CACHE_MAX_ENTRIES) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(hash, { partner, expiresAt: row.expiresAt.getTime(), checkedAt: now });
    return now < row.expiresAt.getTime() ? partner : undefined;
  }

  /** Ends every session of a partner (after a secret rotation). */
  async revokeAll(partnerId: string): Promise<void> {
    await this.#db.delete(accessTokens).where(eq(accessTokens.partnerId, partnerId));
    for (const [hash, entry] of this.#cache) if (entry.partner.id === partnerId) this.#cache.delete(hash);
  }

  /** Deletes tokens that expired more than a day ago; returns how many. */
  async purgeExpired(): Promise<number> {
    const cutoff = new Date(this.#clock.now().getTime() - 24 * 60 * 60 * 1000);
    const gone = await this.#db.delete(accessTokens).where(lt(accessTokens.expiresAt, cutoff)).returning({ h: accessTokens.tokenHash });
    return gone.length;
  }
}
