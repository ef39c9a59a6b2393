import type { Clock } from '../../platform/clock.ts';
import { NotFoundError } from '../../platform/errors.ts';
import type { AuthorizeNetAccounts, AuthorizeNetCredentials } from '../../processors/authorizenet/adapter.ts';
import type { VaultService } from '../vault/vault-service.ts';
import type { ProcessorAccountRepository, SealedCredentials } from './processor-account-repository.ts';

/** What is sealed: the credentials of one processor, as one secret. */
export interface PlainCredentials {
  apiLoginId: string;
  transactionKey: string;
}

/** The vault's context of a processor's credentials: they open for that processor only. */
export const credentialsContext = (processorId: string) => `processor_credentials:${processorId}`;

/** How long opened credentials are kept in this process: a payment does not read and open them every time. */
const CACHE_MS = 5 * 60_000;

/**
 * A processor's credentials, opened from the vault (through VaultService.openSecret), for the
 * adapters: the Authorize.Net adapter asks for them at each call. Kept in memory for a few
 * minutes. Errors never quote a secret.
 */
export class ProcessorCredentialStore implements AuthorizeNetAccounts {
  readonly #repository: ProcessorAccountRepository;
  readonly #vault: VaultService;
  readonly #clock: Clock;
  readonly #cache = new Map<string, { credentials: AuthorizeNetCredentials; until: number }>();

  constructor(deps: { repository: ProcessorAccountRepository; vault: VaultService; clock: Clock }) {
    this.#repository = deps.repository;
    this.#vault = deps.vault;
    this.#clock = deps.clock;
  }

  async credentials(processorId: string): Promise<AuthorizeNetCredentials> {
    const now = this.#clock.now().getTime();
    const cached = this.#cache.get(processorId);
    if (cached && cached.until > now) return cached.credentials;
    const sealed = await this.#repository.find(processorId);
    if (!sealed) throw new NotFoundError(`processor ${processorId} has no stored credentials`);
    const credentials = { ...this.open(sealed), environment: sealed.environment };
    this.#cache.set(processorId, { credentials, until: now + CACHE_MS });
    return credentials;
  }

  seal(processorId: string, plain: PlainCredentials): { ciphertext: string; keyId: string } {
    return this.#vault.sealSecret(JSON.stringify({ apiLoginId: plain.apiLoginId, transactionKey: plain.transactionKey }), credentialsContext(processorId));
  }

  open(sealed: SealedCredentials): PlainCredentials {
    const plain = this.#vault.openSecret(sealed.ciphertext, credentialsContext(sealed.processorId));
    let parsed: Partial<PlainCredentials> | null = null;
    try {
      parsed = JSON.parse(plain) as Partial<PlainCredentials>;
    } catch {
      // JSON.parse's message quotes the text it read: never let it near a log.
    }
    if (typeof parsed?.apiLoginId !== 'string' || typeof parsed.transactionKey !== 'string') {
      throw new Error(`the stored credentials of processor ${sealed.processorId} are not readable`);
    }
    return { apiLoginId: parsed.apiLoginId, transactionKey: parsed.transactionKey };
  }

  /** The vault key new seals are made under. */
  currentKeyId(): string {
    return this.#vault.currentKeyId();
  }

  /** Forgets what this process keeps of a processor's credentials (they changed). */
  forget(processorId: string): void {
    this.#cache.delete(processorId);
  }
}
