import type { Clock } from '../../platform/clock.ts';
import type { Ids } from '../../platform/ids.ts';
import { sha256 } from '../../platform/secrets.ts';
import type { Db } from '../../platform/database/database.ts';
import { gatewaySessions, gatewayUsers, partners } from '../../platform/database/schema/index.ts';
import { and, eq, isNull, lt } from '../../platform/database/drizzle.ts';

/** A live ClientSessionID, as the tokenization calls need it. */
export interface GatewaySession {
  idHash: string;
  partnerId: string;
  userId: string;
  username: string;
  vendor: string;
  expiresAt: Date;
  customer: GatewayCustomer | undefined;
}

export interface GatewayCustomer {
  customerKey: string;
  customerId: string;
}

interface Cached {
  session: GatewaySession;
  checkedAt: number;
}

/** How long a process trusts its memory of a session before asking the database again. */
const CACHE_RECHECK_MS = 30_000;
const CACHE_MAX_ENTRIES = 50_000;

/**
 * ClientSessionIDs: random GUIDs handed out by GetClientSessionID, stored as SHA-256 hashes, valid
 * for GATEWAY_SESSION_TTL from creation (not sliding). A session records the client IP and user
 * agent, and the customer its tokens belong to (made by its first tokenization call).
 */
export class GatewaySessionService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #ttlMs: number;
  readonly #cache = new Map<string, Cached>();

  constructor(db: Db, clock: Clock, ids: Ids, ttlMs: number) {
    this.#db = db;
    this.#clock = clock;
    this.#ids = ids;
    this.#ttlMs = ttlMs;
  }

  async create(input: { userId: string; partnerId: string; clientIp: string; userAgent: string | undefined }): Promise<{ clientSessionId: string; expiresAt: Date }> {
    const clientSessionId = this.#ids.uuid();
    const createdAt = this.#clock.now();
    const expiresAt = new Date(createdAt.getTime() + this.#ttlMs);
    await this.#db.insert(gatewaySessions).values({
      idHash: sha256(clientSessionId.toLowerCase()),
      gatewayUserId: input.userId,
      partnerId: input.partnerId,
      clientIp: input.clientIp,
      userAgent: input.userAgent ?? null,
      createdAt,
      expiresAt,
    });
    return { clientSessionId, expiresAt };
  }

  /** The live session of a ClientSessionID; undefined when it is unknown, expired, or its user or partner is disabled. */
  async resolve(clientSessionId: string): Promise<GatewaySession | undefined> {
    const text = clientSessionId.trim().toLowerCase();
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text)) return undefined;
    const idHash = sha256(text);
    const now = this.#clock.now().getTime();
    const cached = this.#cache.get(idHash);
    if (cached && now >= cached.checkedAt && now - cached.checkedAt < CACHE_RECHECK_MS) {
      return now < cached.session.expiresAt.getTime() ? cached.session : undefined;
    }
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
    if (!row || row.userStatus !== 'active' || row.partnerStatus !== 'active') {
      this.#cache.delete(idHash);
      return undefined;
    }
    const session: GatewaySession = {
      idHash,
      partnerId: row.s.partnerId,
      userId: row.s.gatewayUserId,
      username: row.username,
      vendor: row.vendor,
      expiresAt: row.s.expiresAt,
      customer: row.s.customerKey && row.s.customerId ? { customerKey: row.s.customerKey, customerId: row.s.customerId } : undefined,
    };
    this.#remember(session, now);
    return now < session.expiresAt.getTime() ? session : undefined;
  }

  /**
   * The session's customer, made on first use: `make` builds it (a new CustomerKey and CustomerID).
   * Two calls racing on one session, even in two processes, end with the same customer.
   */
  async customerOf(session: GatewaySession, make: () => Promise<GatewayCustomer>): Promise<GatewayCustomer> {
    if (session.customer) return session.customer;
    const fresh = await make();
    const [claimed] = await this.#db
      .update(gatewaySessions)
      .set({ customerKey: fresh.customerKey, customerId: fresh.customerId })
      .where(and(eq(gatewaySessions.idHash, session.idHash), isNull(gatewaySessions.customerKey)))
      .returning({ customerKey: gatewaySessions.customerKey, customerId: gatewaySessions.customerId });
    let customer: GatewayCustomer;
    if (claimed) {
      customer = fresh;
    } else {
      const [row] = await this.#db
        .select({ customerKey: gatewaySessions.customerKey, customerId: gatewaySessions.customerId })
        .from(gatewaySessions)
        .where(eq(gatewaySessions.idHash, session.idHash));
      customer = { customerKey: row?.customerKey ?? fresh.customerKey, customerId: row?.customerId ?? fresh.customerId };
    }
    session.customer = customer;
    return customer;
  }

  /** Ends every session of a gateway user (disabled, or a new password). */
  async revokeUser(userId: string): Promise<void> {
    await this.#db.delete(gatewaySessions).where(eq(gatewaySessions.gatewayUserId, userId));
    for (const [hash, entry] of this.#cache) if (entry.session.userId === userId) this.#cache.delete(hash);
  }

  /** Deletes sessions that expired more than a day ago; returns how many. */
  async purgeExpired(): Promise<number> {
    const cutoff = new Date(this.#clock.now().getTime() - 24 * 60 * 60 * 1000);
    const gone = await this.#db.delete(gatewaySessions).where(lt(gatewaySessions.expiresAt, cutoff)).returning({ h: gatewaySessions.idHash });
    return gone.length;
  }

  #remember(session: GatewaySession, now: number) {
    if (this.#cache.size >= CACHE_MAX_ENTRIES) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(session.idHash, { session, checkedAt: now });
  }
}
