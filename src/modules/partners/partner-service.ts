import type { Clock } from '../../platform/clock.ts';
import { type FeeSchedule, PAYMENT_NO_FEE_GROUP, scheduleProblems } from '../../domain/fee-schedule.ts';
import { PARTNER_KINDS, type PartnerKind } from '../../domain/partner.ts';
import { GUID, type Ids } from '../../platform/ids.ts';
import { digestsEqual, hashSecret, sha256, verifySecret } from '../../platform/secrets.ts';
import type { DbOrTx, Tx } from '../../platform/database/database.ts';
import { NotFoundError, OperatorInputError } from '../../platform/errors.ts';
import type { ContractRepository } from './contract-repository.ts';
import type { DefaultChoice, IntegrationSource, Organization, PartnerRepository, PartnerSummary, Processor } from './partner-repository.ts';
import type { ReferenceService } from './reference-service.ts';
import type { SessionService } from './session-service.ts';

export type { IntegrationSource, Organization, PartnerSummary, Processor } from './partner-repository.ts';

/** Payment method types a new simulator processor accepts: every card brand, ACH and both wallets. */
export const DEFAULT_PAYMENT_METHOD_TYPES = [1, 2, 3, 4, 5, 6, 7, 8, 9];

export interface PartnerCredentials {
  clientId: string;
  clientSecret: string;
  apiKey: string;
}

/** The partner's first integration source, processor or organization is its default (used when a request names none), unless told. */
const firstIsDefault =
  (isDefault: boolean | undefined): DefaultChoice =>
  (existing) =>
    isDefault ?? existing === 0;

/** Partner administration: the operator CLI and the demo seed use it. */
export class PartnerService {
  readonly #partners: PartnerRepository;
  readonly #contracts: ContractRepository;
  readonly #references: ReferenceService;
  readonly #sessions: SessionService;
  readonly #clock: Clock;
  readonly #ids: Ids;

  constructor(deps: { partners: PartnerRepository; contracts: ContractRepository; references: ReferenceService; sessions: SessionService; clock: Clock; ids: Ids }) {
    this.#partners = deps.partners;
    this.#contracts = deps.contracts;
    this.#references = deps.references;
    this.#sessions = deps.sessions;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
  }

  async createPartner(input: { name: string; kind: string; clientId?: string }): Promise<PartnerCredentials> {
    const name = input.name.trim();
    if (!name) throw new OperatorInputError('a partner needs a name');
    if (!PARTNER_KINDS.includes(input.kind as PartnerKind)) {
      throw new OperatorInputError(`kind must be one of ${PARTNER_KINDS.join(', ')}, got "${input.kind}"`);
    }
    if (input.clientId !== undefined && !GUID.test(input.clientId)) throw new OperatorInputError('clientId must be a UUID');
    const clientId = (input.clientId ?? this.#ids.uuid()).toLowerCase();
    const clientSecret = this.#ids.secret(32);
    const apiKey = this.#ids.secret(32);
    await this.#partners.add({
      id: clientId,
      name,
      kind: input.kind as PartnerKind,
      clientSecretHash: await hashSecret(clientSecret),
      apiKeyHash: sha256(apiKey),
      status: 'active',
      createdAt: this.#clock.now(),
    });
    return { clientId, clientSecret, apiKey };
  }

  async listPartners(): Promise<PartnerSummary[]> {
    return this.#partners.list();
  }

  async getPartner(clientId: string, tx?: DbOrTx): Promise<PartnerSummary> {
    if (!GUID.test(clientId)) throw new OperatorInputError(`"${clientId}" is not a ClientId (a UUID)`);
    const partner = await this.#partners.find(clientId.toLowerCase(), tx);
    if (!partner) throw new NotFoundError(`no partner with ClientId ${clientId}`);
    return partner;
  }

  /** A new ClientSecret; the old one and every session made with it stop working. */
  async rotateSecret(clientId: string): Promise<string> {
    const partner = await this.getPartner(clientId);
    const clientSecret = this.#ids.secret(32);
    await this.#partners.setClientSecretHash(partner.clientId, await hashSecret(clientSecret), this.#clock.now());
    await this.#sessions.revokeAll(partner.clientId);
    return clientSecret;
  }

  /** A new pay-link ApiKey; the old one stops working. */
  async rotateApiKey(clientId: string): Promise<string> {
    const partner = await this.getPartner(clientId);
    const apiKey = this.#ids.secret(32);
    await this.#partners.setApiKeyHash(partner.clientId, sha256(apiKey));
    return apiKey;
  }

  /** Whether `secret` is the partner's ClientSecret now (the demo banner checks its saved ones). */
  async verifyClientSecret(partnerId: string, secret: string): Promise<boolean> {
    return verifySecret(secret, await this.#partners.clientSecretHash(partnerId));
  }

  async verifyApiKey(partnerId: string, apiKey: string): Promise<boolean> {
    const hash = await this.#partners.apiKeyHash(partnerId);
    return hash !== undefined && digestsEqual(hash, sha256(apiKey));
  }

  async createIntegrationSource(clientId: string, input: { name: string; duplicateCheck: boolean; isDefault?: boolean }): Promise<string> {
    const partner = await this.getPartner(clientId);
    const id = this.#ids.uuid();
    await this.#partners.addIntegrationSource(
      { id, partnerId: partner.clientId, name: input.name.trim() || 'Integration source', duplicateCheck: input.duplicateCheck, createdAt: this.#clock.now() },
      firstIsDefault(input.isDefault),
    );
    return id;
  }

  async listIntegrationSources(clientId: string): Promise<IntegrationSource[]> {
    return this.#partners.listIntegrationSources(clientId);
  }

  /**
   * A ConflictError when the partner has a processor with this MKey already. `adapter`: the
   * processor adapter's name, 'simulator' unless given. `withinTransaction`: more rows of the new
   * processor (its sealed credentials), written in the same transaction.
   */
  async createProcessor(
    clientId: string,
    input: { name: string; mkey?: string; paymentMethodTypes?: number[]; isDefault?: boolean; adapter?: string },
    withinTransaction?: (tx: Tx, processorId: string) => Promise<void>,
  ): Promise<string> {
    const partner = await this.getPartner(clientId);
    const types = input.paymentMethodTypes ?? DEFAULT_PAYMENT_METHOD_TYPES;
    for (const t of types) {
      if (!Number.isInteger(t) || t < 1 || t > 10) throw new OperatorInputError(`payment method type ${t} is not 1-10`);
    }
    const id = this.#ids.uuid();
    await this.#partners.addProcessor(
      {
        id,
        partnerId: partner.clientId,
        name: input.name.trim() || 'Simulator',
        adapter: input.adapter ?? 'simulator',
        mkey: input.mkey?.trim() || `mk-${this.#ids.secret(9)}`,
        paymentMethodTypes: [...new Set(types)].sort((a, b) => a - b),
        createdAt: this.#clock.now(),
      },
      firstIsDefault(input.isDefault),
      withinTransaction,
    );
    return id;
  }

  async listProcessors(clientId: string): Promise<Processor[]> {
    return this.#partners.listProcessors(clientId);
  }

  async createOrganization(clientId: string, input: { name: string; charityId?: string; isDefault?: boolean }): Promise<string> {
    const partner = await this.getPartner(clientId);
    if (input.charityId !== undefined && !GUID.test(input.charityId)) throw new OperatorInputError('charityId must be a UUID');
    // Payments made for the organization carry its charity: it must be in the directory.
    if (input.charityId !== undefined && !(await this.#references.resolve(partner.clientId, { charityId: input.charityId })).charityId) {
      throw new OperatorInputError(`no charity ${input.charityId} in the directory (GET /api/CharitySearch gives CharityIds)`);
    }
    const id = this.#ids.uuid();
    await this.#partners.addOrganization(
      { id, partnerId: partner.clientId, name: input.name.trim() || 'Organization', charityId: input.charityId ?? null, createdAt: this.#clock.now() },
      firstIsDefault(input.isDefault),
    );
    return id;
  }

  async listOrganizations(clientId: string): Promise<Organization[]> {
    return this.#partners.listOrganizations(clientId);
  }

  /** The partner's contract: its fee schedules by TransactionSourceGroupId; inside `tx` when given. */
  async getContract(clientId: string, tx?: DbOrTx): Promise<FeeSchedule[]> {
    return this.#contracts.schedules(clientId, tx);
  }

  /** Creates or replaces the schedule of one group. */
  async setSchedule(clientId: string, schedule: FeeSchedule): Promise<void> {
    const partner = await this.getPartner(clientId);
    const problems = scheduleProblems(schedule);
    // A schedule its partner's payments can never use is a mistake (ErrorCode 2000 on every line).
    if (partner.kind === 'for-profit' && schedule.groupId !== PAYMENT_NO_FEE_GROUP) problems.push(`a for-profit partner pays with group ${PAYMENT_NO_FEE_GROUP} only`);
    if (partner.kind === 'non-profit' && schedule.groupId === PAYMENT_NO_FEE_GROUP) problems.push(`group ${PAYMENT_NO_FEE_GROUP} is for for-profit partners`);
    if (problems.length) throw new OperatorInputError(problems.join('; '));
    await this.#contracts.put(partner.clientId, schedule, this.#clock.now());
  }

  async removeSchedule(clientId: string, groupId: number): Promise<boolean> {
    return this.#contracts.remove(clientId, groupId);
  }
}
