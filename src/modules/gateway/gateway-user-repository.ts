import type { Db } from '../../platform/database/database.ts';
import { and, asc, eq, sql } from '../../platform/database/drizzle.ts';
import { sqlStateOf } from '../../platform/database/errors.ts';
import { gatewayUsers, partners } from '../../platform/database/schema/index.ts';
import { ConflictError } from '../../platform/errors.ts';

export interface GatewayUser {
  id: string;
  partnerId: string;
  partnerName: string;
  username: string;
  vendor: string;
  status: 'active' | 'disabled';
  createdAt: Date;
}

/** A user with what a login checks: its password hash and its partner's status. */
export interface GatewayUserLogin {
  user: GatewayUser;
  passwordHash: string;
  partnerStatus: string;
}

type UserRow = typeof gatewayUsers.$inferSelect;

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** Every statement on `gateway_users` (with the partner's name and status each user is shown with). */
export class GatewayUserRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** A partner's id and name, by ClientId (lower case). */
  async partner(partnerId: string): Promise<{ id: string; name: string } | undefined> {
    const [partner] = await this.#db.select({ id: partners.id, name: partners.name }).from(partners).where(eq(partners.id, partnerId));
    return partner;
  }

  /** A user by username, case-insensitively. */
  async findByUsername(username: string): Promise<GatewayUserLogin | undefined> {
    const [row] = await this.#db
      .select({ u: gatewayUsers, partnerName: partners.name, partnerStatus: partners.status })
      .from(gatewayUsers)
      .innerJoin(partners, eq(partners.id, gatewayUsers.partnerId))
      .where(and(sql`lower(${gatewayUsers.username}) = lower(${username})`));
    return row ? { user: toUser(row.u, row.partnerName), passwordHash: row.u.passwordHash, partnerStatus: row.partnerStatus } : undefined;
  }

  /** Every user (of one partner, lower case, or all), oldest first. */
  async list(partnerId?: string): Promise<GatewayUser[]> {
    const rows = await this.#db
      .select({ u: gatewayUsers, partnerName: partners.name })
      .from(gatewayUsers)
      .innerJoin(partners, eq(partners.id, gatewayUsers.partnerId))
      .where(partnerId ? eq(gatewayUsers.partnerId, partnerId) : undefined)
      .orderBy(asc(gatewayUsers.createdAt), asc(gatewayUsers.username));
    return rows.map((r) => toUser(r.u, r.partnerName));
  }

  /** Writes a new user; a ConflictError when its username is taken (the unique index decides a race). */
  async insert(user: Omit<GatewayUser, 'partnerName'> & { passwordHash: string; passwordChangedAt: Date }): Promise<void> {
    try {
      await this.#db.insert(gatewayUsers).values(user);
    } catch (err) {
      if (sqlStateOf(err) === UNIQUE_VIOLATION) throw new ConflictError(`the username ${user.username} is taken`);
      throw err;
    }
  }

  async setStatus(id: string, status: 'active' | 'disabled'): Promise<void> {
    await this.#db.update(gatewayUsers).set({ status }).where(eq(gatewayUsers.id, id));
  }

  async setPassword(id: string, passwordHash: string, changedAt: Date): Promise<void> {
    await this.#db.update(gatewayUsers).set({ passwordHash, passwordChangedAt: changedAt }).where(eq(gatewayUsers.id, id));
  }
}

function toUser(u: UserRow, partnerName: string): GatewayUser {
  return { id: u.id, partnerId: u.partnerId, partnerName, username: u.username, vendor: u.vendor, status: u.status, createdAt: u.createdAt };
}
