import type { Clock } from '../../platform/clock.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { Rule } from '../../domain/rules.ts';
import type { Ids } from '../../platform/ids.ts';
import { digestsEqual, sha256, verifySecret } from '../../platform/secrets.ts';
import { violation } from '../../platform/errors.ts';
import type { PartnerRepository } from './partner-repository.ts';
import type { SessionRepository } from './session-repository.ts';
import { SessionStore } from './session-store.ts';

/** The spec: an access token expires exactly 5 hours after it is issued. */
export const TOKEN_LIFETIME_MS = 5 * 60 * 60 * 1000;
/** How long a process trusts its memory of a token before asking the database again. */
const CACHE_RECHECK_MS = 60_000;

export interface IssuedSession {
  token: string;
  clientId: string;
  expiresAt: Date;
}

/** Surface A's access tokens: issued for a partner's ClientId and ClientSecret. */
export class SessionService {
  readonly #sessions: SessionRepository;
  readonly #partners: PartnerRepository;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #store: SessionStore<{ partner: AuthenticatedPartner; expiresAt: Date }>;

  constructor(deps: { sessions: SessionRepository; partners: PartnerRepository; clock: Clock; ids: Ids }) {
    this.#sessions = deps.sessions;
    this.#partners = deps.partners;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#store = new SessionStore({
      repository: deps.sessions,
      kind: 'access-token',
      clock: deps.clock,
      recheckMs: CACHE_RECHECK_MS,
      ownerOf: (s) => s.partner.id,
      read: async (hash) => {
        const row = await deps.sessions.findAccessToken(hash);
        return row && row.partnerActive && digestsEqual(row.tokenHash, hash) ? { partner: row.partner, expiresAt: row.expiresAt } : undefined;
      },
    });
  }

  /**
   * Exchanges a partner's ClientId and ClientSecret for an access token. An unknown client and
   * a wrong secret fail the same way, after the same work.
   */
  async createSession(clientId: string, clientSecret: string): Promise<IssuedSession> {
    const partner = await this.#partners.secretOf(clientId);
    const ok = await verifySecret(clientSecret, partner?.clientSecretHash);
    if (!ok || !partner || partner.status !== 'active') {
      throw violation(Rule.AuthenticationFailed, undefined, 'The ClientId and ClientSecret do not authenticate.');
    }
    const token = this.#ids.secret(32);
    const issuedAt = this.#clock.now();
    const expiresAt = new Date(issuedAt.getTime() + TOKEN_LIFETIME_MS);
    await this.#sessions.addAccessToken({ tokenHash: sha256(token), partnerId: partner.id, issuedAt, expiresAt });
    return { token, clientId: partner.id, expiresAt };
  }

  /** The partner an access token stands for, or undefined when it is unknown or expired. */
  async authenticate(token: string): Promise<AuthenticatedPartner | undefined> {
    if (token.length < 20 || token.length > 200) return undefined;
    return (await this.#store.find(sha256(token)))?.partner;
  }

  /** Ends every session of a partner (after a secret rotation). */
  async revokeAll(partnerId: string): Promise<void> {
    await this.#store.revoke(partnerId);
  }

  /** Deletes tokens that expired more than a day ago; returns how many. */
  async purgeExpired(): Promise<number> {
    return this.#store.purgeExpired();
  }
}
