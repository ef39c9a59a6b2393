import { randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.ts';
import type { Ids } from '../../platform/ids.ts';
import { PASSWORD_PARAMS, hashSecret, verifySecret } from '../../platform/secrets.ts';
import { ConflictError, NotFoundError, OperatorInputError, findError } from '../../platform/errors.ts';
import type { GatewaySessionService } from '../partners/gateway-session-service.ts';
import type { GatewayUser, GatewayUserRepository } from './gateway-user-repository.ts';

export type { GatewayUser } from './gateway-user-repository.ts';

/** Letters, digits and . _ @ -; 3 to 64 characters. */
const USERNAME = /^[A-Za-z0-9._@-]{3,64}$/;
/** The vendor starts every CustomerID the user makes (<vendor>-<FirstLast>-<timestamp>). */
const VENDOR = /^[A-Za-z0-9._]{1,50}$/;
const MIN_PASSWORD = 12;

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
  readonly #repository: GatewayUserRepository;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #sessions: GatewaySessionService;

  constructor(deps: { repository: GatewayUserRepository; clock: Clock; ids: Ids; sessions: GatewaySessionService }) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#sessions = deps.sessions;
  }

  /** Creates a user for a partner. Without a password one is generated (returned once). */
  async create(input: { partnerId: string; username: string; vendor: string; password?: string }): Promise<GatewayUser & { password: string }> {
    const username = input.username.trim();
    const vendor = input.vendor.trim();
    if (!USERNAME.test(username)) throw new OperatorInputError('a username is 3 to 64 letters, digits, ".", "_", "@" or "-"');
    if (!VENDOR.test(vendor)) throw new OperatorInputError('a vendor is 1 to 50 letters, digits, "." or "_"');
    const password = input.password ?? this.#ids.secret(18);
    checkPassword(password);
    const partner = await this.#repository.partner(input.partnerId.toLowerCase());
    if (!partner) throw new OperatorInputError(`no partner with ClientId ${input.partnerId}`);
    if (await this.#repository.findByUsername(username)) throw new OperatorInputError(`"${username}" is taken`);
    const now = this.#clock.now();
    const id = this.#ids.uuid();
    try {
      await this.#repository.insert({ id, partnerId: partner.id, username, vendor, passwordHash: await hashSecret(password, PASSWORD_PARAMS), status: 'active', createdAt: now, passwordChangedAt: now });
    } catch (err) {
      // Two creations racing for one name: the unique index decides.
      if (findError(err, ConflictError)) throw new OperatorInputError(`"${username}" is taken`);
      throw err;
    }
    return { id, partnerId: partner.id, partnerName: partner.name, username, vendor, status: 'active', createdAt: now, password };
  }

  async list(partnerId?: string): Promise<GatewayUser[]> {
    return this.#repository.list(partnerId?.toLowerCase());
  }

  async get(username: string): Promise<GatewayUser> {
    const found = await this.#repository.findByUsername(username);
    if (!found) throw new NotFoundError(`no gateway user "${username}"`);
    return found.user;
  }

  /** Disabling ends the user's sessions at once. */
  async setStatus(username: string, status: 'active' | 'disabled'): Promise<GatewayUser> {
    const user = await this.get(username);
    await this.#repository.setStatus(user.id, status);
    if (status === 'disabled') await this.#sessions.revokeUser(user.id);
    return { ...user, status };
  }

  /** A new password (generated when none is given); the user's sessions end. */
  async resetPassword(username: string, password?: string): Promise<string> {
    const user = await this.get(username);
    const next = password ?? this.#ids.secret(18);
    checkPassword(next);
    await this.#repository.setPassword(user.id, await hashSecret(next, PASSWORD_PARAMS), this.#clock.now());
    await this.#sessions.revokeUser(user.id);
    return next;
  }

  /**
   * Checks a username and password. An unknown user costs the same scrypt work as a wrong
   * password, and both are `invalid`; `disabled` is only said to a caller who knows the password.
   */
  async authenticate(username: string, password: string): Promise<LoginOutcome> {
    const found = username.length <= 64 ? await this.#repository.findByUsername(username.trim()) : undefined;
    const hash = found?.passwordHash ?? (await (decoy ??= hashSecret(randomBytes(32).toString('base64url'), PASSWORD_PARAMS)));
    const ok = (await verifySecret(password, hash)) && found !== undefined;
    if (!ok || !found) return { ok: false, reason: 'invalid' };
    if (found.user.status !== 'active' || found.partnerStatus !== 'active') return { ok: false, reason: 'disabled' };
    return { ok: true, user: found.user };
  }
}

function checkPassword(password: string) {
  if (password.length < MIN_PASSWORD) throw new OperatorInputError(`a password has at least ${MIN_PASSWORD} characters`);
  if (password.length > 200) throw new OperatorInputError('a password has at most 200 characters');
}

