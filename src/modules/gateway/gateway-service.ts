import { LRUCache } from 'lru-cache';
import { isIP } from 'node:net';
import type { Clock } from '../../platform/clock.ts';
import { bankCountry, checkAccountNumber, checkRoutingNumber, type AccountTypeId, type CheckTypeId } from '../../domain/bank.ts';
import { checkCardNumber, isExpired, parseMmYy } from '../../domain/cards.ts';
import type { GatewaySession, GatewaySessionService } from '../partners/gateway-session-service.ts';
import type { GatewayUserService } from './gateway-user-service.ts';
import type { TokenService } from '../vault/token-service.ts';
import { CONTROL_CHARACTERS } from '../../domain/control-characters.ts';

/** The gateway's result codes (the spec's list). `code` is always one of these. */
export const GATEWAY_CODES = [
  'OK',
  'Unknown_Error',
  'Access_Denied',
  'Invalid_Login',
  'Invalid_User_Status',
  'Invalid_User',
  'User_Not_Found',
  'Username_Already_In_Use',
  'Username_Has_Invalid_Characters',
  'Not_Enough_Privilege',
  'Invalid_PartnerID',
  'Invalid_VendorID',
  'Invalid_Argument',
  'Invalid_Record',
  'Transaction_Type_Not_Supported_By_Host',
  'Internal_Error',
  'Invalid_ProcessorID',
  'Processor_Not_Found',
  'InValidPassword',
] as const;
export type GatewayCode = (typeof GATEWAY_CODES)[number];

/** What an operation answers; the edge writes it as the RecurringResult record. */
export interface GatewayResult {
  code: GatewayCode;
  error?: string;
  customerId?: string;
  clientSessionId?: string;
  customerKey?: string;
  ccInfoKey?: string;
  checkInfoKey?: string;
  vendor?: string;
  username?: string;
}

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
  ccAccountNum?: string;
  ccExpDate?: string;
  ccStreet?: string;
  ccZip?: string;
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

/** The wire parameter names a call used, so that Invalid_Argument names what the client sent. */
export type ParamNames<T> = Partial<Record<keyof T, string>>;

const invalidLogin = (): GatewayResult => ({ code: 'Invalid_Login', error: 'Invalid Username or Password.' });

const SESSION_DENIED = 'ClientSessionID is missing, unknown or expired; call GetClientSessionID for a new one.';

/** Maximum lengths of the optional text parameters that are stored (the payment API's limits). */
const LIMITS = { firstName: 50, lastName: 50, street: 50, zip: 10, nameOnAccount: 50 } as const;

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

/**
 * Fixed windows per key (a client IP, a username): how many events each key had since its window
 * began. A key's window starts at its first event and lasts `windowMs`. At most `maxKeys` windows
 * are kept: a new one first drops the expired windows at the front, then, if there are still too
 * many, the oldest ones (a Map keeps insertion order, and a window is re-inserted when it
 * restarts, so the front is always the oldest window).
 */
export class WindowCounter {
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #windows = new Map<string, { start: number; count: number }>();
  constructor(windowMs: number, maxKeys = 100_000) {
    this.#windowMs = windowMs;
    this.#maxKeys = maxKeys;
  }

  /** Counts an event for `key`; returns the count in its current window (1 for the first). */
  hit(key: string, now: number): number {
    const w = this.#live(key, now);
    if (w) return ++w.count;
    this.#windows.delete(key);
    this.#makeRoom(now);
    this.#windows.set(key, { start: now, count: 1 });
    return 1;
  }

  /** The events of `key` in its current window (0 when it has none). */
  count(key: string, now: number): number {
    return this.#live(key, now)?.count ?? 0;
  }

  forget(key: string): void {
    this.#windows.delete(key);
  }

  get size(): number {
    return this.#windows.size;
  }

  #live(key: string, now: number) {
    const w = this.#windows.get(key);
    return w && now >= w.start && now - w.start < this.#windowMs ? w : undefined;
  }

  #makeRoom(now: number) {
    for (const [key, w] of this.#windows) {
      if (this.#windows.size < this.#maxKeys && now >= w.start && now - w.start < this.#windowMs) break;
      this.#windows.delete(key);
    }
  }
}

/** At most `max` holders at once; a caller that finds it full is turned away, never queued. */
export class Gate {
  readonly #max: number;
  #held = 0;
  constructor(max: number) {
    this.#max = max;
  }
  /** A release function, or undefined when the gate is full. */
  tryEnter(): (() => void) | undefined {
    if (this.#held >= this.#max) return undefined;
    this.#held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held--;
    };
  }
}

/**
 * What a GetClientSessionID attempt may cost (each one is a 128 MiB, ~0.5 s scrypt):
 * - `perIpPerMinute` attempts per caller address (GATEWAY_LOGIN_RATE_LIMIT);
 * - `failuresPerAddress` failed logins of one username from one caller address in
 *   `failureWindowMs` lock that username for that address for the rest of the window: further
 *   attempts from it are Invalid_Login without hashing;
 * - `failuresPerUsername` failed logins of one username from all addresses lock it the same way
 *   for every address except those it logged in from in the last KNOWN_ADDRESS_MS (a guesser
 *   spread over many addresses is stopped, and cannot lock the integration's own servers out);
 * - `concurrentHashes` password checks at once in this process; a login that finds them all busy
 *   is Access_Denied at once (queueing would let a flood hold every caller).
 */
export interface LoginLimits {
  perIpPerMinute: number;
  failuresPerAddress: number;
  failuresPerUsername: number;
  failureWindowMs: number;
  concurrentHashes: number;
  /** Windows kept per counter before the oldest are evicted. */
  maxTrackedKeys: number;
}

export const DEFAULT_LOGIN_LIMITS: Omit<LoginLimits, 'perIpPerMinute'> = {
  failuresPerAddress: 10,
  failuresPerUsername: 100,
  failureWindowMs: 15 * 60_000,
  concurrentHashes: 2,
  maxTrackedKeys: 100_000,
};

/** How long an address a user logged in from stays exempt from that user's all-address lock. */
export const KNOWN_ADDRESS_MS = 24 * 60 * 60_000;

/** Usernames are at most 64 characters (gateway-users.ts); a longer one cannot log in. */
const MAX_USERNAME = 64;

/**
 * The tokenization gateway's operations (surface B), independent of SOAP: GetClientSessionID,
 * GetToken and GetCheckToken. Business outcomes are results with a code, never exceptions.
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

  async getClientSessionId(args: ClientSessionArgs, caller: GatewayCaller, names: ParamNames<ClientSessionArgs> = {}): Promise<GatewayResult> {
    const name = (k: keyof ClientSessionArgs, fallback: string) => names[k] ?? fallback;
    const problems: string[] = [];
    const username = text(args.username);
    const password = args.password ?? '';
    if (!username) problems.push(`${name('username', 'Username')} is required.`);
    if (password === '') problems.push(`${name('password', 'Password')} is required.`);
    const clientIp = text(args.clientIp);
    if (clientIp && (clientIp.length > 45 || isIP(clientIp) === 0)) problems.push(`${name('clientIp', 'ClientIP')} must be an IPv4 or IPv6 address.`);
    if (problems.length) return invalid(problems);
    const now = this.#clock.now().getTime();
    if (this.#attemptsPerIp.hit(caller.ip, now) > this.#limits.perIpPerMinute) {
      return { code: 'Access_Denied', error: 'Too many GetClientSessionID attempts from this address; try again in a minute.' };
    }
    // Nothing below this line hashes unless the username may still try.
    if (username!.length > MAX_USERNAME) return invalidLogin();
    const userKey = username!.toLowerCase();
    const addressKey = `${userKey}\u0000${caller.ip}`;
    const lockedHere = this.#failuresPerAddress.count(addressKey, now) >= this.#limits.failuresPerAddress;
    const lockedEverywhere = this.#failuresPerUsername.count(userKey, now) >= this.#limits.failuresPerUsername && !this.#knownAddresses.has(addressKey);
    if (lockedHere || lockedEverywhere) {
      // Unknown usernames lock alike, so this tells nothing about which users exist.
      return { code: 'Invalid_Login', error: `Too many failed logins for this ${name('username', 'Username')}; try again later.` };
    }
    const release = this.#hashing.tryEnter();
    if (!release) {
      return { code: 'Access_Denied', error: 'The server is busy checking other logins; try GetClientSessionID again in a few seconds.' };
    }
    let login: Awaited<ReturnType<GatewayUserService['authenticate']>>;
    try {
      login = await this.#users.authenticate(username!, password);
    } finally {
      release();
    }
    if (!login.ok) {
      if (login.reason === 'disabled') return { code: 'Invalid_User_Status', error: 'The gateway user is disabled.' };
      const failedAt = this.#clock.now().getTime();
      this.#failuresPerAddress.hit(addressKey, failedAt);
      this.#failuresPerUsername.hit(userKey, failedAt);
      return invalidLogin();
    }
    // The username-wide count stays: a guesser elsewhere is still counted, and this address is now exempt from it.
    this.#failuresPerAddress.forget(addressKey);
    this.#knownAddresses.set(addressKey, true);
    const vendor = text(args.vendor);
    if (vendor && vendor.toLowerCase() !== login.user.vendor.toLowerCase()) {
      return { code: 'Invalid_VendorID', error: `${name('vendor', 'Vendor')} does not match the gateway user's vendor.` };
    }
    const { clientSessionId } = await this.#sessions.create({
      userId: login.user.id,
      partnerId: login.user.partnerId,
      // ClientIP is the payer's address as the integration saw it; without it, the caller's.
      clientIp: clientIp ?? caller.ip,
      userAgent: (text(args.userAgent) ?? caller.userAgent)?.slice(0, 500),
    });
    return { code: 'OK', error: 'ClientSessionID generated successfully', clientSessionId, username: login.user.username };
  }

  async getToken(args: CardTokenArgs, names: ParamNames<CardTokenArgs> = {}): Promise<GatewayResult> {
    const name = (k: keyof CardTokenArgs, fallback: string) => names[k] ?? fallback;
    const session = await this.#session(args.clientSessionId);
    if (!session) return { code: 'Access_Denied', error: SESSION_DENIED };
    const problems: string[] = [];
    const card = checkCardNumber(args.ccAccountNum);
    if (!card.ok) problems.push(`${name('ccAccountNum', 'CcAccountNum')} ${card.problem.message}.`);
    const expText = text(args.ccExpDate);
    const expiry = expText ? parseMmYy(expText) : undefined;
    if (!expText) problems.push(`${name('ccExpDate', 'CcExpDate')} is required.`);
    else if (!expiry) problems.push(`${name('ccExpDate', 'CcExpDate')} must be MMYY: a two-digit month (01-12) and a two-digit year.`);
    else if (isExpired(expiry.expMonth, expiry.expYear, this.#clock.now())) problems.push(`${name('ccExpDate', 'CcExpDate')} is in the past: the card has expired.`);
    const holder = { firstName: text(args.firstName), lastName: text(args.lastName), street: text(args.ccStreet), zip: text(args.ccZip) };
    problems.push(...holderTextProblems(holder, { firstName: name('firstName', 'FirstName'), lastName: name('lastName', 'LastName'), street: name('ccStreet', 'CcStreet'), zip: name('ccZip', 'CcZip') }));
    if (problems.length || !card.ok || !expiry) return invalid(problems);

    const customer = await this.#customer(session, holder.firstName, holder.lastName);
    const token = await this.#tokens.tokenizeCard(session.partnerId, {
      cardNumber: card.number,
      expMonth: expiry.expMonth,
      expYear: expiry.expYear,
      ...holder,
      customerKey: customer.customerKey,
      customerId: customer.customerId,
      source: 'gateway',
    });
    return { code: 'OK', customerId: customer.customerId, clientSessionId: args.clientSessionId!.trim(), customerKey: customer.customerKey, ccInfoKey: token.gatewayKey };
  }

  async getCheckToken(args: CheckTokenArgs, names: ParamNames<CheckTokenArgs> = {}): Promise<GatewayResult> {
    const name = (k: keyof CheckTokenArgs, fallback: string) => names[k] ?? fallback;
    const session = await this.#session(args.clientSessionId);
    if (!session) return { code: 'Access_Denied', error: SESSION_DENIED };
    const problems: string[] = [];
    // The gateway takes US accounts: BankRoutingNum is "9 digits" with the ABA checksum.
    const country = bankCountry('US')!;
    const routing = checkRoutingNumber(country, args.routingNumber);
    if (!routing.ok) problems.push(`${name('routingNumber', 'BankRoutingNum')} ${routing.problem.message}.`);
    const account = checkAccountNumber(country, args.accountNumber);
    if (!account.ok) problems.push(`${name('accountNumber', 'BankAccountNum')} ${account.problem.message}.`);
    const typeText = text(args.accountType);
    const accountType = typeText ? accountTypeOf(typeText) : undefined;
    if (!typeText) problems.push(`${name('accountType', 'BankAcctType')} is required: C (checking) or S (savings).`);
    else if (!accountType) problems.push(`${name('accountType', 'BankAcctType')} must be C (checking) or S (savings); AccountType may say Checking or Savings.`);
    const checkTypeText = text(args.checkType);
    const checkType = checkTypeText ? checkTypeOf(checkTypeText) : undefined;
    if (checkTypeText && !checkType) problems.push(`${name('checkType', 'CheckType')} must be Personal, Corporate or Government (or 1, 2, 3).`);
    const holder = {
      firstName: text(args.firstName),
      lastName: text(args.lastName),
      street: text(args.street),
      zip: text(args.zip),
      nameOnAccount: text(args.nameOnAccount),
    };
    problems.push(
      ...holderTextProblems(holder, {
        firstName: name('firstName', 'FirstName'),
        lastName: name('lastName', 'LastName'),
        street: name('street', 'CkStreet'),
        zip: name('zip', 'CkZip'),
        nameOnAccount: name('nameOnAccount', 'CkNameOnAccount'),
      }),
    );
    if (problems.length || !routing.ok || !account.ok || !accountType) return invalid(problems);

    const customer = await this.#customer(session, holder.firstName, holder.lastName);
    const token = await this.#tokens.tokenizeBankAccount(session.partnerId, {
      routingNumber: routing.routingNumber,
      accountNumber: account.accountNumber,
      accountType,
      checkType,
      country,
      ...holder,
      customerKey: customer.customerKey,
      customerId: customer.customerId,
      source: 'gateway',
    });
    return { code: 'OK', customerId: customer.customerId, clientSessionId: args.clientSessionId!.trim(), customerKey: customer.customerKey, checkInfoKey: token.gatewayKey };
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

function invalid(problems: string[]): GatewayResult {
  return { code: 'Invalid_Argument', error: problems.join(' ') };
}

/**
 * The holder's text as the payment API holds it: within its lengths, and without control
 * characters (C0, DEL, C1), which the pay page strips and a pay link refuses. Stored with the
 * token, they reached payment records and their exports: an escape sequence in a name, a line
 * break in a street (a robustness audit).
 */
function holderTextProblems(values: Record<string, string | undefined>, names: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(values)) {
    const max = LIMITS[k as keyof typeof LIMITS];
    if (v !== undefined && max !== undefined && v.length > max) out.push(`${names[k]} must be at most ${max} characters.`);
    else if (v !== undefined && CONTROL_CHARACTERS.test(v)) out.push(`${names[k]} must not contain control characters.`);
  }
  return out;
}

