import { randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.ts';
import type { Ids } from '../../platform/ids.ts';
import { PASSWORD_PARAMS, hashSecret, verifySecret } from '../../platform/secrets.ts';
import type { Db } from '../../platform/database/database.ts';
import { gatewayUsers, partners } from '../../platform/database/schema/index.ts';
import { NotFoundError } from '../../platform/errors.ts';
import type { GatewaySessionService } from '../partners/gateway-session-service.ts';
import { OperatorInputError } from '../../platform/errors.ts';
import { and, asc, eq, sql } from '../../platform/database/drizzle.ts';

/** Letters, digits and . _ @ -; 3 to 64 characters. */
const USERNAME = /^[A-Za-z0-9._@-]{3,64}$/;
/** The vendor starts every CustomerID the user makes (<vendor>-<FirstLast>-<timestamp>). */
const VENDOR = /^[A-Za-z0-9._]{1,50}$/;
const MIN_PASSWORD = 12;

export interface GatewayUser {
  id: string;
  partnerId: string;
  partnerName: string;
  username: string;
  vendor: string;
  status: 'active' | 'disabled';
  createdAt: Date;
}

export type LoginOutcome =
  | { ok: true; user: GatewayUser }
  | { ok: false; reason: 'invalid' | 'disabled' };

/** A well-formed hash with the password parameters, checked against when the user does not exist. */
let decoy: Promise<string> | undefined;

/**
 * Users of the SOAP gateway. Each belongs to a partner, whose tokens it makes. Passwords are
 * hashed with scrypt at PASSWORD_PARAMS (people choose them).
 */
export class GatewayUserService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #sessions: GatewaySessionService;

  constructor(db: Db, clock: Clock, ids: Ids, sessions: GatewaySessionService) {
    this.#db = db;
    this.#clock = clock;
    this.#ids = ids;
    this.#sessions = sessions;
  }

  /**
   * Creates a user for a partner. Without a password one is generated (returned once). Errors
   * carry the gateway's code names: Username_Has_Invalid_Characters, Username_Already_In_Use,
   * Invalid_PartnerID, Invalid_VendorID.
   */
  async create(input: { partnerId: string; username: string; vendor: string; password?: string }): Promise<GatewayUser & { password: string }> {
    const username = input.username.trim();
    const vendor = input.vendor.trim();
    if (!USERNAME.test(username)) {
      throw new OperatorInputError('Username_Has_Invalid_Characters: a username is 3 to 64 letters, digits, ".", "_", "@" or "-"');
    }
    if (!VENDOR.test(vendor)) throw new OperatorInputError('Invalid_VendorID: a vendor is 1 to 50 letters, digits, "." or "_"');
    const password = input.password ?? this.#ids.secret(18);
    checkPassword(password);
    const [partner] = await this.#db.select({ id: partners.id, name: partners.name }).from(partners).where(eq(partners.id, input.partnerId.toLowerCase()));
    if (!partner) throw new OperatorInputError(`Invalid_PartnerID: no partner with ClientId ${input.partnerId}`);
    if (await this.#findRow(username)) throw new OperatorInputError(`Username_Already_In_Use: "${username}" is taken`);
    const now = this.#clock.now();
    const id = this.#ids.uuid();
    try {
      await this.#db.insert(gatewayUsers).values({
        id,
        partnerId: partner.id,
        username,
        vendor,
        passwordHash: await hashSecret(password, PASSWORD_PARAMS),
        status: 'active',
        createdAt: now,
        passwordChangedAt: now,
      });
    } catch (err) {
      // Two creations racing for one name: the unique index decides.
      if (/gateway_users_username|unique/i.test(String((err as Error).message) + String((err as { cause?: Error }).cause?.message))) {
        throw new OperatorInputError(`Username_Already_In_Use: "${username}" is taken`);
      }
      throw err;
    }
    return { id, partnerId: partner.id, partnerName: partner.name, username, vendor, status: 'active', createdAt: now, password };
  }

  async list(partnerId?: string): Promise<GatewayUser[]> {
    const rows = await this.#db
      .select({ u: gatewayUsers, partnerName: partners.name })
      .from(gatewayUsers)
      .innerJoin(partners, eq(partners.id, gatewayUsers.partnerId))
      .where(partnerId ? eq(gatewayUsers.partnerId, partnerId.toLowerCase()) : undefined)
      .orderBy(asc(gatewayUsers.createdAt), asc(gatewayUsers.username));
    return rows.map((r) => toUser(r.u, r.partnerName));
  }

  async get(username: string): Promise<GatewayUser> {
    const row = await this.#findRow(username);
    if (!row) throw new NotFoundError(`User_Not_Found: no gateway user "${username}"`);
    return toUser(row.u, row.partnerName);
  }

  /** Disabling ends the user's sessions at once. */
  async setStatus(username: string, status: 'active' | 'disabled'): Promise<GatewayUser> {
    const user = await this.get(username);
    await this.#db.update(gatewayUsers).set({ status }).where(eq(gatewayUsers.id, user.id));
    if (status === 'disabled') await this.#sessions.revokeUser(user.id);
    return { ...user, status };
  }

  /** A new password (generated when none is given); the user's sessions end. */
  async resetPassword(username: string, password?: string): Promise<string> {
    const user = await this.get(username);
    const next = password ?? this.#ids.secret(18);
    checkPassword(next);
    await this.#db
      .update(gatewayUsers)
      .set({ passwordHash: await hashSecret(next, PASSWORD_PARAMS), passwordChangedAt: this.#clock.now() })
      .where(eq(gatewayUsers.id, user.id));
    await this.#sessions.revokeUser(user.id);
    return next;
  }

  /**
   * Checks a username and password. An unknown user costs the same scrypt work as a wrong
   * password, and both are `invalid`; `disabled` is only said to a caller who knows the password.
   */
  async authenticate(username: string, password: string): Promise<LoginOutcome> {
    const row = username.length <= 64 ? await this.#findRow(username.trim()) : undefined;
    const hash = row?.u.passwordHash ?? (await (decoy ??= hashSecret(randomBytes(32).toString('base64url'), PASSWORD_PARAMS)));
    const ok = (await verifySecret(password, hash)) && row !== undefined;
    if (!ok || !row) return { ok: false, reason: 'invalid' };
    if (row.u.status !== 'active' || row.partnerStatus !== 'active') return { ok: false, reason: 'disabled' };
    return { ok: true, user: toUser(row.u, row.partnerName) };
  }

  async #findRow(username: string) {
    const [row] = await this.#db
      .select({ u: gatewayUsers, partnerName: partners.name, partnerStatus: partners.status })
      .from(gatewayUsers)
      .innerJoin(partners, eq(partners.id, gatewayUsers.partnerId))
      .where(and(sql`lower(${gatewayUsers.username}) = lower(${username})`));
    return row;
  }
}

function checkPassword(password: string) {
  if (password.length < MIN_PASSWORD) throw new OperatorInputError(`InValidPassword: a password has at least ${MIN_PASSWORD} characters`);
  if (password.length > 200) throw new OperatorInputError('InValidPassword: a password has at most 200 characters');
}

function toUser(u: typeof gatewayUsers.$inferSelect, partnerName: string): GatewayUser {
  return { id: u.id, partnerId: u.partnerId, partnerName, username: u.username, vendor: u.vendor, status: u.status, createdAt: u.createdAt };
}

