import { LRUCache } from 'lru-cache';
import type { Clock } from '../../platform/clock.ts';
import { NotFoundError, ValidationError, type Violation } from '../../platform/errors.ts';
import type { Ids } from '../../platform/ids.ts';
import { Rule } from '../../domain/rules.ts';
import type { VaultService } from '../vault/vault-service.ts';
import type { ConfigWrite, NotificationConfigRepository, StoredConfig } from './config-repository.ts';
import type { HttpSender, SendResult } from './http-sender.ts';
import { DEFAULT_RETRIES, MAX_RETRIES } from './retry-schedule.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from './signer.ts';
import { resolvedUrlProblem, type UrlPolicy } from './url-rules.ts';

/** One config as a partner sends it (PUT /api/notificationConfig), already read from the wire. */
export interface ConfigInput {
  notificationConfigId?: number;
  notificationConfigurationTypeId: string;
  notificationProtocolTypeId: string;
  notificationUrl?: string;
  retries?: number;
  /** undefined: keep the stored one; '' or null: none. */
  accessToken?: string | null;
  isDeleted: boolean;
}

/** A config as a partner reads it: the AccessToken only as a hint. */
export interface NotificationConfig {
  id: number;
  url: string;
  retries: number;
  accessTokenHint: string | null;
  paused: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A partner's signing secret, as its owner sees it once. */
export interface SigningSecretInfo {
  /** Only when it was just made. */
  secret?: string;
  createdAt: Date;
  previousExpiresAt: Date | null;
}

/** How long a replaced signing secret still signs (both signatures are sent). */
export const SECRET_GRACE_MS = 24 * 3_600_000;
/** The most URLs a partner keeps. */
export const MAX_CONFIGS = 10;
const ACCESS_TOKEN_MAX = 500;

/**
 * A webhook's AccessToken is sent as a header's value: printable ASCII only (a control
 * character, or a letter beyond Latin-1, made every delivery fail in the HTTP client).
 */
function accessTokenProblem(field: string, token: string | null | undefined): Violation | undefined {
  if (typeof token !== 'string' || (token.length <= ACCESS_TOKEN_MAX && /^[\x20-\x7e]*$/.test(token))) return undefined;
  return { code: Rule.InvalidFormat, field, message: `{${field}} must be at most ${ACCESS_TOKEN_MAX} printable ASCII characters (it is sent as a header).` };
}
/** Opened secrets are kept this long in the process: a delivery does not open them every time. */
const CACHE_MS = 60_000;

const tokenContext = (configId: number) => `notification_config:${configId}`;
const secretContext = (partnerId: string) => `notification_secret:${partnerId}`;

function hint(token: string): string {
  return token.length >= 12 ? `****${token.slice(-4)}` : '****';
}

/**
 * Partners' notification URLs and signing secrets: the rules of a config, the URL rules at
 * configuration, sealed AccessTokens and secrets, and the signing of what is sent.
 */
export class NotificationConfigService {
  readonly #repository: NotificationConfigRepository;
  readonly #vault: VaultService;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #policy: UrlPolicy;
  readonly #sender: HttpSender;
  readonly #secretCache = new Map<string, { secrets: string[]; until: number }>();
  readonly #tokenCache = new LRUCache<string, string>({ max: 10_000 });

  constructor(deps: { repository: NotificationConfigRepository; vault: VaultService; clock: Clock; ids: Ids; policy: UrlPolicy; sender: HttpSender }) {
    this.#repository = deps.repository;
    this.#vault = deps.vault;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#policy = deps.policy;
    this.#sender = deps.sender;
  }

  async list(partnerId: string): Promise<NotificationConfig[]> {
    return (await this.#repository.list(partnerId)).map(toConfig);
  }

  /**
   * Saves a partner's configs: each input with an id changes (or with IsDeleted removes) that
   * config, each without adds one. All are checked first; one broken rule and nothing is saved.
   */
  async save(partnerId: string, inputs: readonly ConfigInput[]): Promise<NotificationConfig[]> {
    const violations: Violation[] = [];
    const existing = new Map((await this.#repository.list(partnerId)).map((c) => [c.id, c]));
    const at = (i: number, field: string) => `notificationConfigs[${i}].${field}`;
    for (const [i, input] of inputs.entries()) {
      if (input.notificationConfigurationTypeId !== '1') {
        violations.push({ code: Rule.InvalidValue, field: at(i, 'notificationConfigurationTypeId'), message: `{${at(i, 'notificationConfigurationTypeId')}} must be 1.` });
      }
      if (input.notificationProtocolTypeId === '2') {
        violations.push({ code: Rule.NotificationProtocolNotSupported, field: at(i, 'notificationProtocolTypeId'), message: 'E-mail notifications (NotificationProtocolTypeId 2) are not supported; use 1 (web).' });
      } else if (input.notificationProtocolTypeId !== '1') {
        violations.push({ code: Rule.InvalidValue, field: at(i, 'notificationProtocolTypeId'), message: `{${at(i, 'notificationProtocolTypeId')}} must be 1 (web).` });
      }
      if (input.notificationConfigId !== undefined && !existing.has(input.notificationConfigId)) {
        violations.push({ code: Rule.UnknownReference, field: at(i, 'notificationConfigId'), message: `{${at(i, 'notificationConfigId')}} is not one of your notification configs.` });
      }
      if (input.isDeleted) continue;
      if (input.notificationUrl === undefined || input.notificationUrl === '') {
        violations.push({ code: Rule.Required, field: at(i, 'notificationUrl'), message: `{${at(i, 'notificationUrl')}} is required.` });
      } else {
        const problem = await resolvedUrlProblem(input.notificationUrl, this.#policy);
        if (problem) violations.push({ code: Rule.NotificationUrlNotAllowed, field: at(i, 'notificationUrl'), message: `{${at(i, 'notificationUrl')}} ${problem}.` });
      }
      if (input.retries !== undefined && (!Number.isInteger(input.retries) || input.retries < 0 || input.retries > MAX_RETRIES)) {
        violations.push({ code: Rule.OutOfRange, field: at(i, 'retries'), message: `{${at(i, 'retries')}} must be a whole number from 0 to ${MAX_RETRIES}.` });
      }
      const tokenProblem = accessTokenProblem(at(i, 'accessToken'), input.accessToken);
      if (tokenProblem) violations.push(tokenProblem);
    }
    const kept = new Set(existing.keys());
    for (const input of inputs) if (input.isDeleted && input.notificationConfigId !== undefined) kept.delete(input.notificationConfigId);
    const added = inputs.filter((x) => !x.isDeleted && x.notificationConfigId === undefined).length;
    if (kept.size + added > MAX_CONFIGS) {
      violations.push({ code: Rule.OutOfRange, field: 'notificationConfigs', message: `A partner has at most ${MAX_CONFIGS} notification URLs.` });
    }
    if (violations.length > 0) throw new ValidationError(violations);

    const now = this.#clock.now();
    const removed = inputs.filter((x) => x.isDeleted && x.notificationConfigId !== undefined).map((x) => x.notificationConfigId!);
    const writes: ConfigWrite[] = [];
    const tokensOfNew: (string | null)[] = [];
    for (const input of inputs) {
      if (input.isDeleted) continue;
      const before = input.notificationConfigId === undefined ? undefined : existing.get(input.notificationConfigId);
      const write: ConfigWrite = { url: input.notificationUrl!, retries: input.retries ?? before?.retries ?? DEFAULT_RETRIES };
      if (before) {
        write.id = before.id;
        if (input.accessToken !== undefined) write.accessToken = input.accessToken ? this.#sealToken(before.id, input.accessToken) : null;
      } else {
        tokensOfNew.push(input.accessToken || null);
      }
      writes.push(write);
    }
    let saved = await this.#repository.save(partnerId, writes, removed, now);
    // A new config's token is sealed under its id, known once it is written.
    const newOnes = saved.filter((c) => !existing.has(c.id)).sort((a, b) => a.id - b.id);
    const tokenWrites = newOnes.flatMap((c, i) => (tokensOfNew[i] ? [{ id: c.id, url: c.url, retries: c.retries, accessToken: this.#sealToken(c.id, tokensOfNew[i]!) }] : []));
    if (tokenWrites.length > 0) saved = await this.#repository.save(partnerId, tokenWrites, [], now);
    if (saved.length > 0) await this.#repository.createSecret(partnerId, this.#vault.sealSecret(this.#newSecret(), secretContext(partnerId)), now);
    return saved.map(toConfig);
  }

  /** Pauses (or resumes) a partner's configs, or one config. Returns how many changed. */
  async setPaused(target: { partnerId: string } | { configId: number }, paused: boolean): Promise<number> {
    return this.#repository.setPaused(target, paused, this.#clock.now());
  }

  /** When the partner's signing secret was made, and until when the previous one still signs; never the secret. */
  async secretInfo(partnerId: string): Promise<SigningSecretInfo | undefined> {
    const stored = await this.#repository.secrets(partnerId);
    if (!stored) return undefined;
    const now = this.#clock.now();
    return { createdAt: stored.createdAt, previousExpiresAt: stored.previous && stored.previous.expiresAt > now ? stored.previous.expiresAt : null };
  }

  /** A new signing secret, answered this once; the one it replaces signs too for SECRET_GRACE_MS. */
  async rotateSecret(partnerId: string, graceMs = SECRET_GRACE_MS): Promise<SigningSecretInfo & { secret: string }> {
    const secret = this.#newSecret();
    const now = this.#clock.now();
    const had = await this.#repository.secrets(partnerId);
    const previousUntil = new Date(now.getTime() + graceMs);
    await this.#repository.rotateSecret(partnerId, this.#vault.sealSecret(secret, secretContext(partnerId)), now, previousUntil);
    this.#secretCache.delete(partnerId);
    return { secret, createdAt: now, previousExpiresAt: had ? previousUntil : null };
  }

  /**
   * The secrets that sign the partner's notifications now: the current one, and the previous
   * one in its grace period. A partner without one gets one (it rotates to learn it).
   */
  async signingSecrets(partnerId: string): Promise<string[]> {
    const nowMs = this.#clock.now().getTime();
    const cached = this.#secretCache.get(partnerId);
    if (cached && cached.until > nowMs) return cached.secrets;
    let stored = await this.#repository.secrets(partnerId);
    if (!stored) {
      await this.#repository.createSecret(partnerId, this.#vault.sealSecret(this.#newSecret(), secretContext(partnerId)), this.#clock.now());
      stored = (await this.#repository.secrets(partnerId))!;
    }
    const secrets = [this.#vault.openSecret(stored.current.ciphertext, secretContext(partnerId))];
    let until = nowMs + CACHE_MS;
    if (stored.previous && stored.previous.expiresAt.getTime() > nowMs) {
      secrets.push(this.#vault.openSecret(stored.previous.ciphertext, secretContext(partnerId)));
      until = Math.min(until, stored.previous.expiresAt.getTime());
    }
    this.#secretCache.set(partnerId, { secrets, until });
    return secrets;
  }

  /** A config's AccessToken, opened (kept in memory while the process runs; a change of the config forgets it). */
  accessToken(configId: number, sealed: { ciphertext: string; keyId: string }): string {
    const key = `${configId}:${sealed.ciphertext}`;
    let token = this.#tokenCache.get(key);
    if (token === undefined) {
      token = this.#vault.openSecret(sealed.ciphertext, tokenContext(configId));
      this.#tokenCache.set(key, token);
    }
    return token;
  }

  /**
   * POST /api/notificationTest: posts `payload` once to `url` now, signed with the partner's
   * secrets, under the same URL rules as a config (it is the obvious way to probe a network).
   */
  async test(partnerId: string, input: { url?: string; accessToken?: string; payload: unknown }): Promise<SendResult> {
    const violations: Violation[] = [];
    if (!input.url) violations.push({ code: Rule.Required, field: 'url', message: '{url} is required.' });
    else {
      const problem = await resolvedUrlProblem(input.url, this.#policy);
      if (problem) violations.push({ code: Rule.NotificationUrlNotAllowed, field: 'url', message: `{url} ${problem}.` });
    }
    const tokenProblem = accessTokenProblem('accessToken', input.accessToken);
    if (tokenProblem) violations.push(tokenProblem);
    if (violations.length > 0) throw new ValidationError(violations);
    const body = JSON.stringify(input.payload ?? {});
    const headers = this.headers(this.#ids.uuid(), body, await this.signingSecrets(partnerId), input.accessToken || undefined);
    return this.#sender.post(input.url!, body, headers);
  }

  /** The headers of a notification: its signature, its event id and the AccessToken when there is one. */
  headers(eventId: string, body: string, secrets: readonly string[], accessToken: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {
      [SIGNATURE_HEADER]: signatureHeader(body, secrets, Math.floor(this.#clock.now().getTime() / 1000)),
      [EVENT_ID_HEADER]: eventId,
    };
    if (accessToken) headers.AccessToken = accessToken;
    return headers;
  }

  #sealToken(configId: number, token: string): { ciphertext: string; keyId: string; hint: string } {
    return { ...this.#vault.sealSecret(token, tokenContext(configId)), hint: hint(token) };
  }

  #newSecret(): string {
    return `whsec_${this.#ids.secret(32)}`;
  }

  /**
   * Re-seals the AccessTokens and signing secrets under the vault's current key (after a key
   * rotation, so that the older key can be pruned); the ones it cannot open are counted and left.
   */
  async reencryptAll(): Promise<{ resealed: number; failed: number }> {
    const currentKeyId = this.#vault.currentKeyId();
    let resealed = 0;
    let failed = 0;
    for (const item of await this.#repository.sealedNotUnder(currentKeyId)) {
      const context = item.kind === 'token' ? tokenContext(Number(item.owner)) : secretContext(item.owner);
      try {
        const plain = this.#vault.openSecret(item.ciphertext, context);
        await this.#repository.reseal(item.kind, item.owner, item.ciphertext, this.#vault.sealSecret(plain, context));
        resealed++;
      } catch {
        failed++;
      }
    }
    // The opened copies in memory stay valid: a rotation changes the sealing, not the secrets.
    return { resealed, failed };
  }

  /** The vault keys the sealed AccessTokens and secrets are under (a vault key pruning keeps them). */
  keyIdsInUse(): Promise<string[]> {
    return this.#repository.keyIdsInUse();
  }

  /** One config of the partner. */
  async get(partnerId: string, configId: number): Promise<NotificationConfig> {
    const config = await this.#repository.find(configId);
    if (!config || config.partnerId !== partnerId) throw new NotFoundError();
    return toConfig(config);
  }
}

function toConfig(c: StoredConfig): NotificationConfig {
  return { id: c.id, url: c.url, retries: c.retries, accessTokenHint: c.accessToken?.hint ?? null, paused: c.paused, createdAt: c.createdAt, updatedAt: c.updatedAt };
}
