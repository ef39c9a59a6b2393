import { LRUCache } from 'lru-cache';
import { isIP } from 'node:net';
import type { Clock } from '../../platform/clock.ts';
import { type AccountTypeId, type BankProblem, type CheckTypeId, checkBankAccount } from '../../domain/bank.ts';
import { type CardProblem, type CheckedCard, checkCard, checkCardNumber, parseMmYy } from '../../domain/cards.ts';
import { CONTROL_CHARACTERS } from '../../domain/control-characters.ts';
import { HOLDER_LIMITS } from '../../domain/holder.ts';
import { Rule } from '../../domain/rules.ts';
import { ValidationError, type Violation } from '../../platform/errors.ts';
import type { GatewaySession, GatewaySessionService } from '../partners/gateway-session-service.ts';
import type { TokenService } from '../vault/token-service.ts';
import type { GatewayUserService } from './gateway-user-service.ts';
import { DEFAULT_LOGIN_LIMITS, Gate, KNOWN_ADDRESS_MS, type LoginLimits, WindowCounter } from './login-limits.ts';

/** Where the call came from (the TCP peer, or the client a trusted proxy names). */
export interface GatewayCaller {
  ip: string;
  userAgent: string | undefined;
}

export interface ClientSessionArgs {
  username?: string;
  password?: string;
  vendor?: string;
  clientIp?: string;
  userAgent?: string;
}

export interface CardTokenArgs {
  clientSessionId?: string;
  cardNumber?: string;
  /** MMYY */
  expiry?: string;
  street?: string;
  zip?: string;
  firstName?: string;
  lastName?: string;
}

export interface CheckTokenArgs {
  clientSessionId?: string;
  routingNumber?: string;
  accountNumber?: string;
  /** C / S, or Checking / Savings */
  accountType?: string;
  /** Personal / Corporate (Business) / Government, or 1 / 2 / 3 */
  checkType?: string;
  nameOnAccount?: string;
  street?: string;
  zip?: string;
  firstName?: string;
  lastName?: string;
}

/**
 * Why GetClientSessionID made no session: too many attempts from the caller's address, every
 * password check busy, a wrong username or password, a username locked by failed logins, a
 * disabled user (or partner), a Vendor that is not the user's.
 */
export type LoginRefusal = 'tooManyAttempts' | 'busy' | 'invalidLogin' | 'locked' | 'userDisabled' | 'vendorMismatch';

export type SessionOutcome = { ok: true; clientSessionId: string; username: string } | { ok: false; refusal: LoginRefusal };

/** A token stored for the session's customer, or no live session (`sessionDenied`). */
export type TokenOutcome =
  | { ok: true; clientSessionId: string; customerKey: string; customerId: string; gatewayKey: string }
  | { ok: false; refusal: 'sessionDenied' };

const SESSION_DENIED: TokenOutcome = { ok: false, refusal: 'sessionDenied' };

/** yyyyMMddHHmmss in UTC */
function compactTimestamp(at: Date): string {
  return at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/**
 * `<vendor>-<FirstLast>-<yyyyMMddHHmmss>`: the first and last names are joined without spaces and
 * keep letters and digits only; with no name the middle part is "Customer".
 */
export function gatewayCustomerId(vendor: string, firstName: string | undefined, lastName: string | undefined, at: Date): string {
  const name = `${firstName ?? ''}${lastName ?? ''}`.normalize('NFC').replace(/[^\p{L}\p{N}]+/gu, '').slice(0, 100) || 'Customer';
  return `${vendor}-${name}-${compactTimestamp(at)}`;
}

function text(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/** Parses an account type given as C/S or Checking/Savings. */
export function accountTypeOf(value: string): AccountTypeId | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'c' || v === 'checking') return 1;
  if (v === 's' || v === 'savings') return 2;
  return undefined;
}

export function checkTypeOf(value: string): CheckTypeId | undefined {
  const v = value.trim().toLowerCase();
  if (v === '1' || v === 'personal' || v === 'p') return 1;
  if (v === '2' || v === 'corporate' || v === 'business' || v === 'company' || v === 'c') return 2;
  if (v === '3' || v === 'government' || v === 'g') return 3;
  return undefined;
}

/** Usernames are at most 64 characters (gateway-user-service.ts); a longer one cannot log in. */
const MAX_USERNAME = 64;

/**
 * The tokenization gateway's operations, whatever carries them (SOAP or HTTP POST):
 * GetClientSessionID, GetToken and GetCheckToken. Refusals are outcomes; arguments that break a
 * rule are a ValidationError whose messages name the arguments as `{field}` placeholders, for the
 * edge to write with the parameter names the caller used.
 */
export class GatewayService {
  readonly #users: GatewayUserService;
  readonly #sessions: GatewaySessionService;
  readonly #tokens: TokenService;
  readonly #clock: Clock;
  readonly #limits: LoginLimits;
  readonly #attemptsPerIp: WindowCounter;
  readonly #failuresPerAddress: WindowCounter;
  readonly #failuresPerUsername: WindowCounter;
  /** `username NUL address` of the logins that succeeded in the last KNOWN_ADDRESS_MS. */
  readonly #knownAddresses: LRUCache<string, true>;
  readonly #hashing: Gate;

  /** `loginAttemptsPerMinute`: GetClientSessionID attempts per caller address a minute (GATEWAY_LOGIN_RATE_LIMIT). */
  constructor(deps: {
    users: GatewayUserService;
    sessions: GatewaySessionService;
    tokens: TokenService;
    clock: Clock;
    loginAttemptsPerMinute: number;
    loginLimits?: Partial<Omit<LoginLimits, 'perIpPerMinute'>>;
  }) {
    this.#users = deps.users;
    this.#sessions = deps.sessions;
    this.#tokens = deps.tokens;
    this.#clock = deps.clock;
    this.#limits = { ...DEFAULT_LOGIN_LIMITS, ...deps.loginLimits, perIpPerMinute: deps.loginAttemptsPerMinute };
    this.#attemptsPerIp = new WindowCounter(60_000, this.#limits.maxTrackedKeys);
    this.#failuresPerAddress = new WindowCounter(this.#limits.failureWindowMs, this.#limits.maxTrackedKeys);
    this.#failuresPerUsername = new WindowCounter(this.#limits.failureWindowMs, this.#limits.maxTrackedKeys);
    const clock = deps.clock;
    this.#knownAddresses = new LRUCache<string, true>({
      max: this.#limits.maxTrackedKeys,
      ttl: KNOWN_ADDRESS_MS,
      ttlResolution: 0,
      perf: { now: () => clock.now().getTime() },
    });
    this.#hashing = new Gate(this.#limits.concurrentHashes);
  }

  async getClientSessionId(args: ClientSessionArgs, caller: GatewayCaller): Promise<SessionOutcome> {
    const violations: Violation[] = [];
    const username = text(args.username);
    const password = args.password ?? '';
    if (!username) violations.push({ code: Rule.Required, field: 'username', message: '{username} is required.' });
    if (password === '') violations.push({ code: Rule.Required, field: 'password', message: '{password} is required.' });
    const clientIp = text(args.clientIp);
    if (clientIp && (clientIp.length > 45 || isIP(clientIp) === 0)) {
      violations.push({ code: Rule.InvalidFormat, field: 'clientIp', message: '{clientIp} must be an IPv4 or IPv6 address.' });
    }
    if (violations.length) throw new ValidationError(violations);
    const now = this.#clock.now().getTime();
    if (this.#attemptsPerIp.hit(caller.ip, now) > this.#limits.perIpPerMinute) return { ok: false, refusal: 'tooManyAttempts' };
    // Nothing below this line hashes unless the username may still try.
    if (username!.length > MAX_USERNAME) return { ok: false, refusal: 'invalidLogin' };
    const userKey = username!.toLowerCase();
    const addressKey = `${userKey}\u0000${caller.ip}`;
    const lockedHere = this.#failuresPerAddress.count(addressKey, now) >= this.#limits.failuresPerAddress;
    const lockedEverywhere = this.#failuresPerUsername.count(userKey, now) >= this.#limits.failuresPerUsername && !this.#knownAddresses.has(addressKey);
    // Unknown usernames lock alike, so this tells nothing about which users exist.
    if (lockedHere || lockedEverywhere) return { ok: false, refusal: 'locked' };
    const release = this.#hashing.tryEnter();
    if (!release) return { ok: false, refusal: 'busy' };
    let login: Awaited<ReturnType<GatewayUserService['authenticate']>>;
    try {
      login = await this.#users.authenticate(username!, password);
    } finally {
      release();
    }
    if (!login.ok) {
      if (login.reason === 'disabled') return { ok: false, refusal: 'userDisabled' };
      const failedAt = this.#clock.now().getTime();
      this.#failuresPerAddress.hit(addressKey, failedAt);
      this.#failuresPerUsername.hit(userKey, failedAt);
      return { ok: false, refusal: 'invalidLogin' };
    }
    // The username-wide count stays: a guesser elsewhere is still counted, and this address is now exempt from it.
    this.#failuresPerAddress.forget(addressKey);
    this.#knownAddresses.set(addressKey, true);
    const vendor = text(args.vendor);
    if (vendor && vendor.toLowerCase() !== login.user.vendor.toLowerCase()) return { ok: false, refusal: 'vendorMismatch' };
    const { clientSessionId } = await this.#sessions.create({
      userId: login.user.id,
      partnerId: login.user.partnerId,
      // ClientIP is the payer's address as the integration saw it; without it, the caller's.
      clientIp: clientIp ?? caller.ip,
      userAgent: (text(args.userAgent) ?? caller.userAgent)?.slice(0, 500),
    });
    return { ok: true, clientSessionId, username: login.user.username };
  }

  /** Checks the card once, into a checked card that the token service stores as it is. */
  async getToken(args: CardTokenArgs): Promise<TokenOutcome> {
    const session = await this.#session(args.clientSessionId);
    if (!session) return SESSION_DENIED;
    const violations: Violation[] = [];
    const expText = text(args.expiry);
    const expiry = expText ? parseMmYy(expText) : undefined;
    let card: CheckedCard | undefined;
    if (expiry) {
      const checked = checkCard({ number: args.cardNumber, ...expiry }, this.#clock.now());
      if (checked.ok) card = checked.card;
      else for (const p of checked.problems) violations.push(cardViolation(p));
    } else {
      const number = checkCardNumber(args.cardNumber);
      if (!number.ok) violations.push(cardViolation(number.problem));
      if (!expText) violations.push({ code: Rule.Required, field: 'expiry', message: '{expiry} is required.' });
      else violations.push({ code: Rule.InvalidFormat, field: 'expiry', message: '{expiry} must be MMYY: a two-digit month (01-12) and a two-digit year.' });
    }
    const holder = { firstName: text(args.firstName), lastName: text(args.lastName), street: text(args.street), zip: text(args.zip) };
    holderTextViolations(holder, violations);
    if (violations.length || !card) throw new ValidationError(violations);

    const customer = await this.#customer(session, holder.firstName, holder.lastName);
    const token = await this.#tokens.storeCard(session.partnerId, card, holder, { source: 'gateway', customerKey: customer.customerKey, customerId: customer.customerId });
    return { ok: true, clientSessionId: args.clientSessionId!.trim(), customerKey: customer.customerKey, customerId: customer.customerId, gatewayKey: token.gatewayKey };
  }

  /** Checks the account once (the gateway takes US accounts), into a checked account that the token service stores as it is. */
  async getCheckToken(args: CheckTokenArgs): Promise<TokenOutcome> {
    const session = await this.#session(args.clientSessionId);
    if (!session) return SESSION_DENIED;
    const violations: Violation[] = [];
    const checked = checkBankAccount({ country: 'US', routingNumber: args.routingNumber, accountNumber: args.accountNumber });
    if (!checked.ok) for (const p of checked.problems) violations.push(bankViolation(p));
    const typeText = text(args.accountType);
    const accountType = typeText ? accountTypeOf(typeText) : undefined;
    if (!typeText) violations.push({ code: Rule.Required, field: 'accountType', message: '{accountType} is required: C (checking) or S (savings).' });
    else if (!accountType) {
      violations.push({ code: Rule.InvalidValue, field: 'accountType', message: '{accountType} must be C (checking) or S (savings); AccountType may say Checking or Savings.' });
    }
    const checkTypeText = text(args.checkType);
    const checkType = checkTypeText ? checkTypeOf(checkTypeText) : undefined;
    if (checkTypeText && !checkType) {
      violations.push({ code: Rule.InvalidValue, field: 'checkType', message: '{checkType} must be Personal, Corporate or Government (or 1, 2, 3).' });
    }
    const holder = { firstName: text(args.firstName), lastName: text(args.lastName), street: text(args.street), zip: text(args.zip), nameOnAccount: text(args.nameOnAccount) };
    holderTextViolations(holder, violations);
    if (violations.length || !checked.ok || !accountType) throw new ValidationError(violations);

    const customer = await this.#customer(session, holder.firstName, holder.lastName);
    const token = await this.#tokens.storeBankAccount(session.partnerId, checked.account, holder, {
      source: 'gateway',
      customerKey: customer.customerKey,
      customerId: customer.customerId,
      accountType,
      checkType,
      nameOnAccount: holder.nameOnAccount,
    });
    return { ok: true, clientSessionId: args.clientSessionId!.trim(), customerKey: customer.customerKey, customerId: customer.customerId, gatewayKey: token.gatewayKey };
  }

  async #session(clientSessionId: string | undefined): Promise<GatewaySession | undefined> {
    const id = text(clientSessionId);
    return id ? this.#sessions.resolve(id) : undefined;
  }

  /** The session's customer: made by its first tokenization call, shared by the later ones. */
  #customer(session: GatewaySession, firstName: string | undefined, lastName: string | undefined) {
    return this.#sessions.customerOf(session, async () => ({
      customerKey: await this.#tokens.newCustomerKey(),
      customerId: gatewayCustomerId(session.vendor, firstName, lastName, this.#clock.now()),
    }));
  }
}

function cardViolation(p: CardProblem): Violation {
  const field = p.field === 'number' ? 'cardNumber' : 'expiry';
  const code = p.kind === 'required' ? Rule.Required : p.kind === 'expired' ? Rule.CardExpired : p.kind === 'checksum' || p.kind === 'brand' ? Rule.CardNumberInvalid : Rule.InvalidFormat;
  return { code, field, message: `{${field}} ${p.message}.` };
}

function bankViolation(p: BankProblem): Violation {
  const code = p.kind === 'required' ? Rule.Required : p.field === 'routingNumber' ? Rule.RoutingNumberInvalid : Rule.AccountNumberInvalid;
  return { code, field: p.field, message: `{${p.field}} ${p.message}.` };
}

/**
 * The holder's text as the payment API holds it: within HOLDER_LIMITS, and without control
 * characters (C0, DEL, C1), which the pay page strips and a pay link refuses: stored with the
 * token, they would reach payment records and their exports (an escape sequence in a name, a line
 * break in a street).
 */
function holderTextViolations(values: Record<string, string | undefined>, out: Violation[]): void {
  for (const field in values) {
    const v = values[field];
    if (v === undefined) continue;
    const max = HOLDER_LIMITS[field as keyof typeof HOLDER_LIMITS];
    if (v.length > max) out.push({ code: Rule.MaxLength, field, message: `{${field}} must be at most ${max} characters.` });
    else if (CONTROL_CHARACTERS.test(v)) out.push({ code: Rule.InvalidFormat, field, message: `{${field}} must not contain control characters.` });
  }
}
