import type { Clock } from '../../platform/clock.ts';
import type { Ids } from '../../platform/ids.ts';
import { sha256 } from '../../platform/secrets.ts';
import type { SessionRepository } from './session-repository.ts';
import { SessionStore } from './session-store.ts';

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

/** How long a process trusts its memory of a session before asking the database again. */
const CACHE_RECHECK_MS = 30_000;

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * ClientSessionIDs: random GUIDs handed out by GetClientSessionID, stored as SHA-256 hashes, valid
 * for GATEWAY_SESSION_TTL from creation (not sliding). A session records the client IP and user
 * agent, and the customer its tokens belong to (made by its first tokenization call).
 */
export class GatewaySessionService {
  readonly #sessions: SessionRepository;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #ttlMs: number;
  readonly #store: SessionStore<GatewaySession>;

  constructor(deps: { sessions: SessionRepository; clock: Clock; ids: Ids; ttlMs: number }) {
    this.#sessions = deps.sessions;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#ttlMs = deps.ttlMs;
    this.#store = new SessionStore<GatewaySession>({
      repository: deps.sessions,
      kind: 'gateway',
      clock: deps.clock,
      recheckMs: CACHE_RECHECK_MS,
      ownerOf: (s) => s.userId,
      read: async (idHash) => {
        const row = await deps.sessions.findGatewaySession(idHash);
        if (!row || !row.active) return undefined;
        const { customerKey, customerId } = row;
        return {
          idHash,
          partnerId: row.partnerId,
          userId: row.userId,
          username: row.username,
          vendor: row.vendor,
          expiresAt: row.expiresAt,
          customer: customerKey && customerId ? { customerKey, customerId } : undefined,
        };
      },
    });
  }

  async create(input: { userId: string; partnerId: string; clientIp: string; userAgent: string | undefined }): Promise<{ clientSessionId: string; expiresAt: Date }> {
    const clientSessionId = this.#ids.uuid();
    const createdAt = this.#clock.now();
    const expiresAt = new Date(createdAt.getTime() + this.#ttlMs);
    await this.#sessions.addGatewaySession({
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
    if (!SESSION_ID.test(text)) return undefined;
    return this.#store.find(sha256(text));
  }

  /**
   * The session's customer, made on first use: `make` builds it (a new CustomerKey and CustomerID).
   * Two calls racing on one session, even in two processes, end with the same customer.
   */
  async customerOf(session: GatewaySession, make: () => Promise<GatewayCustomer>): Promise<GatewayCustomer> {
    if (session.customer) return session.customer;
    const fresh = await make();
    let customer: GatewayCustomer;
    if (await this.#sessions.claimCustomer(session.idHash, fresh)) {
      customer = fresh;
    } else {
      const row = await this.#sessions.customerOf(session.idHash);
      customer = { customerKey: row?.customerKey ?? fresh.customerKey, customerId: row?.customerId ?? fresh.customerId };
    }
    session.customer = customer;
    return customer;
  }

  /** Ends every session of a gateway user (disabled, or a new password). */
  async revokeUser(userId: string): Promise<void> {
    await this.#store.revoke(userId);
  }

  /** Deletes sessions that expired more than a day ago; returns how many. */
  async purgeExpired(): Promise<number> {
    return this.#store.purgeExpired();
  }
}
