import type { Clock } from '../../platform/clock.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { PAYMENT_METHOD_TYPE_NAMES } from '../../domain/payment-status.ts';
import { NotFoundError, OperatorInputError } from '../../platform/errors.ts';
import { GUID } from '../../platform/ids.ts';
import type { ProcessorRegistry } from '../../processors/registry.ts';
import { DEFAULT_PAYMENT_METHOD_TYPES, type PartnerService } from '../partners/partner-service.ts';
import type { ProcessorService } from '../partners/processor-service.ts';
import type { Environment, ProcessorAccountRepository } from './processor-account-repository.ts';
import type { ProcessorCredentialStore } from './processor-credential-store.ts';

/** A processor to add, with the credentials its adapter needs (the transaction key from stdin, never an argument). */
export interface AddProcessorInput {
  adapter: string;
  name: string;
  mkey?: string;
  paymentMethodTypes?: number[];
  isDefault?: boolean;
  /** Authorize.Net: which endpoint its credentials are for. */
  environment?: Environment;
  apiLoginId?: string;
  transactionKey?: string;
}

/** Adapters that need credentials, and what they need. */
const NEEDS_CREDENTIALS = new Set(['authorizenet']);

/** Authorize.Net's API login id: up to 25 characters (letters and digits in practice). */
const API_LOGIN_ID = /^[A-Za-z0-9]{1,25}$/;
/** Authorize.Net's transaction key: 16 letters and digits. */
const TRANSACTION_KEY = /^[A-Za-z0-9]{16}$/;

/**
 * Processors with their acquirer's credentials (issue 30): adding one (`payments processors add`),
 * checking its credentials (`payments processors test`), what its adapter can take (GET
 * /api/processorPaymentMethodTypes), and the vault keys its sealed credentials use.
 */
export class ProcessorAccountService {
  readonly #repository: ProcessorAccountRepository;
  readonly #credentials: ProcessorCredentialStore;
  readonly #partners: PartnerService;
  readonly #processors: ProcessorService;
  readonly #adapters: ProcessorRegistry;
  readonly #clock: Clock;

  constructor(deps: {
    repository: ProcessorAccountRepository;
    credentials: ProcessorCredentialStore;
    partners: PartnerService;
    processors: ProcessorService;
    adapters: ProcessorRegistry;
    clock: Clock;
  }) {
    this.#repository = deps.repository;
    this.#credentials = deps.credentials;
    this.#partners = deps.partners;
    this.#processors = deps.processors;
    this.#adapters = deps.adapters;
    this.#clock = deps.clock;
  }

  /**
   * Adds a processor of the partner's on `adapter`, with its credentials sealed by the vault in
   * the same transaction. Its payment method types are those asked for (by default, the usual
   * ones), each of which the adapter must take.
   */
  async add(clientId: string, input: AddProcessorInput): Promise<{ processorId: string; paymentMethodTypes: number[] }> {
    if (!this.#adapters.names().includes(input.adapter)) {
      throw new OperatorInputError(`no processor adapter "${input.adapter}" (there are: ${this.#adapters.names().join(', ')})`);
    }
    const supported = this.#adapters.capabilities(input.adapter).paymentMethodTypes;
    const asked = input.paymentMethodTypes ?? DEFAULT_PAYMENT_METHOD_TYPES.filter((t) => supported.includes(t));
    const unsupported = asked.filter((t) => !supported.includes(t));
    if (unsupported.length) {
      const named = unsupported.map((t) => `${t} (${PAYMENT_METHOD_TYPE_NAMES[t] ?? 'unknown'})`).join(', ');
      throw new OperatorInputError(`the ${input.adapter} adapter does not take payment method type(s) ${named}; it takes ${supported.join(',')}`);
    }
    const plain = this.#checkedCredentials(input);
    const mkey = input.mkey?.trim();
    if (mkey && (await this.#partners.listProcessors(clientId)).some((p) => p.mkey === mkey)) {
      throw new OperatorInputError(`--mkey "${mkey}" is already the MKey of another processor of this partner`);
    }
    const processorId = await this.#partners.createProcessor(
      clientId,
      { name: input.name, mkey: input.mkey, paymentMethodTypes: asked, isDefault: input.isDefault, adapter: input.adapter },
      plain
        ? async (tx, id) => {
            await this.#repository.insert(tx, { processorId: id, environment: plain.environment, ...this.#credentials.seal(id, plain) }, this.#clock.now());
          }
        : undefined,
    );
    return { processorId, paymentMethodTypes: [...new Set(asked)].sort((a, b) => a - b) };
  }

  /** Whether the processor's acquirer takes its credentials (Authorize.Net: authenticateTestRequest). */
  async test(processorId: string): Promise<{ ok: boolean; adapter: string; message: string }> {
    if (!GUID.test(processorId)) throw new OperatorInputError(`"${processorId}" is not a ProcessorGuid (a UUID)`);
    const processor = await this.#repository.processor(processorId.toLowerCase());
    if (!processor) throw new NotFoundError(`No processor ${processorId}.`);
    const adapter = this.#adapters.forProcessor(processor);
    if (!adapter.checkCredentials) return { ok: true, adapter: processor.adapter, message: `the ${processor.adapter} adapter needs no credentials` };
    // Read again from the vault: the test is of what is stored now.
    this.#credentials.forget(processor.id);
    try {
      return { adapter: processor.adapter, ...(await adapter.checkCredentials({ processorId: processor.id })) };
    } catch (err) {
      return { ok: false, adapter: processor.adapter, message: (err as Error)?.message ?? String(err) };
    }
  }

  /**
   * The active payment method types of one of the partner's processors that its adapter takes
   * (a type the adapter cannot charge is not offered).
   */
  async activePaymentMethodTypes(partner: AuthenticatedPartner, ref: { processorId?: string; mkey?: string }): Promise<number[]> {
    const processor = await this.#processors.resolve(partner, ref);
    if (!this.#adapters.names().includes(processor.adapter)) return [];
    const supported = this.#adapters.capabilities(processor.adapter).paymentMethodTypes;
    return processor.paymentMethodTypes.filter((t) => supported.includes(t));
  }

  /** The vault keys the stored credentials are sealed under (a key in use must not be pruned). */
  keyIdsInUse(): Promise<string[]> {
    return this.#repository.keyIdsInUse();
  }

  /** Re-seals every stored credential under the vault's current key; the ones it cannot open are counted and left. */
  async reencryptAll(options: { batchSize?: number } = {}): Promise<{ resealed: number; failed: number }> {
    const batchSize = options.batchSize ?? 100;
    const currentKeyId = this.#credentials.currentKeyId();
    let resealed = 0;
    let failed = 0;
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const batch = await this.#repository.transaction(async (tx) => {
        const rows = await this.#repository.notUnder(tx, currentKeyId, after, batchSize);
        for (const row of rows) {
          try {
            const plain = this.#credentials.open(row);
            await this.#repository.reseal(tx, row.processorId, this.#credentials.seal(row.processorId, plain), this.#clock.now());
            resealed++;
          } catch {
            failed++;
          }
        }
        return rows;
      });
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!.processorId;
    }
    return { resealed, failed };
  }

  #checkedCredentials(input: AddProcessorInput): (PlainCredentialsWithEnvironment) | undefined {
    if (!NEEDS_CREDENTIALS.has(input.adapter)) {
      if (input.apiLoginId !== undefined || input.transactionKey !== undefined || input.environment !== undefined) {
        throw new OperatorInputError(`the ${input.adapter} adapter takes no credentials`);
      }
      return undefined;
    }
    if (!input.environment) throw new OperatorInputError(`the ${input.adapter} adapter needs --sandbox or --production`);
    const apiLoginId = input.apiLoginId?.trim() ?? '';
    if (!API_LOGIN_ID.test(apiLoginId)) throw new OperatorInputError('the API login id is 1 to 25 letters and digits');
    const transactionKey = input.transactionKey?.trim() ?? '';
    // Never quoted: the key is a secret.
    if (!TRANSACTION_KEY.test(transactionKey)) throw new OperatorInputError('the transaction key (on standard input) is 16 letters and digits');
    return { apiLoginId, transactionKey, environment: input.environment };
  }
}

type PlainCredentialsWithEnvironment = { apiLoginId: string; transactionKey: string; environment: Environment };
