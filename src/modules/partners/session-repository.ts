import type { AuthenticatedPartner } from '../../domain/partner.ts';
import type { Db } from '../../platform/database/database.ts';
import { accessTokens, gatewaySessions, gatewayUsers, partners } from '../../platform/database/schema/index.ts';
import { and, eq, isNull, lt } from '../../platform/database/drizzle.ts';

/** The two kinds of session: surface A's access tokens and the gateway's ClientSessionIDs. */
export type SessionKind = 'access-token' | 'gateway';

/** What every session row has: the hash of its secret, its owner and its expiry. */
const TABLES = {
  'access-token': { table: accessTokens, hash: accessTokens.tokenHash, owner: accessTokens.partnerId, expiresAt: accessTokens.expiresAt },
  gateway: { table: gatewaySessions, hash: gatewaySessions.idHash, owner: gatewaySessions.gatewayUserId, expiresAt: gatewaySessions.expiresAt },
} as const;

/** An access token as stored, with its partner. */
export interface AccessTokenRecord {
  tokenHash: string;
  expiresAt: Date;
  partner: AuthenticatedPartner;
  partnerActive: boolean;
}

/** A ClientSessionID as stored, with its gateway user. */
export interface GatewaySessionRecord {
  idHash: string;
  partnerId: string;
  userId: string;
  username: string;
  vendor: string;
  expiresAt: Date;
  customerKey: string | null;
  customerId: string | null;
  /** The gateway user and the partner are both active. */
  active: boolean;
}

/** Every statement on the sessions of both kinds. */
export class SessionRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async addAccessToken(values: { tokenHash: string; partnerId: string; issuedAt: Date; expiresAt: Date }): Promise<void> {
    await this.#db.insert(accessTokens).values(values);
  }

  async addGatewaySession(values: { idHash: string; gatewayUserId: string; partnerId: string; clientIp: string; userAgent: string | null; createdAt: Date; expiresAt: Date }): Promise<void> {
    await this.#db.insert(gatewaySessions).values(values);
  }

  async findAccessToken(tokenHash: string): Promise<AccessTokenRecord | undefined> {
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
      .where(eq(accessTokens.tokenHash, tokenHash));
    if (!row) return undefined;
    return { tokenHash: row.tokenHash, expiresAt: row.expiresAt, partner: { id: row.id, name: row.name, kind: row.kind }, partnerActive: row.status === 'active' };
  }

  async findGatewaySession(idHash: string): Promise<GatewaySessionRecord | undefined> {
    const [row] = await this.#db
      .select({
        s: gatewaySessions,
        username: gatewayUsers.username,
        vendor: gatewayUsers.vendor,
        userStatus: gatewayUsers.status,
        partnerStatus: partners.status,
      })
      .from(gatewaySessions)
      .innerJoin(gatewayUsers, eq(gatewayUsers.id, gatewaySessions.gatewayUserId))
      .innerJoin(partners, eq(partners.id, gatewaySessions.partnerId))
      .where(eq(gatewaySessions.idHash, idHash));
    if (!row) return undefined;
    return {
      idHash: row.s.idHash,
      partnerId: row.s.partnerId,
      userId: row.s.gatewayUserId,
      username: row.username,
      vendor: row.vendor,
      expiresAt: row.s.expiresAt,
      customerKey: row.s.customerKey,
      customerId: row.s.customerId,
      active: row.userStatus === 'active' && row.partnerStatus === 'active',
    };
  }

  /** Records the session's customer unless it has one already; whether this call recorded it. */
  async claimCustomer(idHash: string, customer: { customerKey: string; customerId: string }): Promise<boolean> {
    const claimed = await this.#db
      .update(gatewaySessions)
      .set({ customerKey: customer.customerKey, customerId: customer.customerId })
      .where(and(eq(gatewaySessions.idHash, idHash), isNull(gatewaySessions.customerKey)))
      .returning({ customerKey: gatewaySessions.customerKey, customerId: gatewaySessions.customerId });
    return claimed.length > 0;
  }

  async customerOf(idHash: string): Promise<{ customerKey: string | null; customerId: string | null } | undefined> {
    const [row] = await this.#db
      .select({ customerKey: gatewaySessions.customerKey, customerId: gatewaySessions.customerId })
      .from(gatewaySessions)
      .where(eq(gatewaySessions.idHash, idHash));
    return row;
  }

  /** Deletes every session of an owner: a partner's access tokens, a gateway user's sessions. */
  async revoke(kind: SessionKind, ownerId: string): Promise<void> {
    const t = TABLES[kind];
    await this.#db.delete(t.table).where(eq(t.owner, ownerId));
  }

  /** Deletes the sessions that expired before `cutoff`; returns how many. */
  async deleteExpiredBefore(kind: SessionKind, cutoff: Date): Promise<number> {
    const t = TABLES[kind];
    const gone = await this.#db.delete(t.table).where(lt(t.expiresAt, cutoff)).returning({ h: t.hash });
    return gone.length;
  }
}
