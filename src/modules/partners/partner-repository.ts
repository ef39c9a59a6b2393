import type { PartnerKind } from '../../domain/partner.ts';
import type { Db, DbOrTx, Tx } from '../../platform/database/database.ts';
import { sqlStateOf } from '../../platform/database/errors.ts';
import { integrationSources, organizations, partners, processors } from '../../platform/database/schema/index.ts';
import { ConflictError } from '../../platform/errors.ts';
import { asc, eq } from '../../platform/database/drizzle.ts';

export interface PartnerSummary {
  clientId: string;
  name: string;
  kind: PartnerKind;
  status: string;
  createdAt: Date;
}

export interface IntegrationSource {
  id: string;
  partnerId: string;
  name: string;
  duplicateCheck: boolean;
  isDefault: boolean;
  createdAt: Date;
}

export interface Processor {
  id: string;
  partnerId: string;
  name: string;
  adapter: string;
  mkey: string;
  paymentMethodTypes: number[];
  isDefault: boolean;
  createdAt: Date;
}

export interface Organization {
  id: string;
  partnerId: string;
  name: string;
  charityId: string | null;
  isDefault: boolean;
  createdAt: Date;
}

/** Whether a new record is its partner's default, given how many the partner has already. */
export type DefaultChoice = (existing: number) => boolean;

/** The unique constraint that keeps a partner's MKeys apart. */
const PROCESSOR_MKEY_UNIQUE = 'processors_partner_id_mkey_key';

/** A unique constraint refused the statement: the error, or a wrapper of it, names the constraint. */
function uniqueViolation(err: unknown, constraint: string): boolean {
  if (sqlStateOf(err) !== '23505') return false;
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 6; depth++) {
    if ((e as { constraint?: unknown }).constraint === constraint) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

const toSummary = (r: typeof partners.$inferSelect): PartnerSummary => ({ clientId: r.id, name: r.name, kind: r.kind, status: r.status, createdAt: r.createdAt });

/** Every statement on partners and what they own: integration sources, processors, organizations. */
export class PartnerRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async add(values: { id: string; name: string; kind: PartnerKind; clientSecretHash: string; apiKeyHash: string; status: 'active' | 'disabled'; createdAt: Date }): Promise<void> {
    await this.#db.insert(partners).values(values);
  }

  async list(): Promise<PartnerSummary[]> {
    const rows = await this.#db.select().from(partners).orderBy(asc(partners.createdAt), asc(partners.name));
    return rows.map(toSummary);
  }

  async find(partnerId: string, tx: DbOrTx = this.#db): Promise<PartnerSummary | undefined> {
    const [r] = await tx.select().from(partners).where(eq(partners.id, partnerId));
    return r ? toSummary(r) : undefined;
  }

  /** What a ClientSecret is checked against. */
  async secretOf(partnerId: string): Promise<{ id: string; clientSecretHash: string; status: string } | undefined> {
    const [r] = await this.#db.select({ id: partners.id, clientSecretHash: partners.clientSecretHash, status: partners.status }).from(partners).where(eq(partners.id, partnerId));
    return r;
  }

  async clientSecretHash(partnerId: string): Promise<string | undefined> {
    const [r] = await this.#db.select({ h: partners.clientSecretHash }).from(partners).where(eq(partners.id, partnerId));
    return r?.h;
  }

  async apiKeyHash(partnerId: string): Promise<string | undefined> {
    const [r] = await this.#db.select({ h: partners.apiKeyHash }).from(partners).where(eq(partners.id, partnerId));
    return r?.h;
  }

  async setClientSecretHash(partnerId: string, clientSecretHash: string, rotatedAt: Date): Promise<void> {
    await this.#db.update(partners).set({ clientSecretHash, secretRotatedAt: rotatedAt }).where(eq(partners.id, partnerId));
  }

  async setApiKeyHash(partnerId: string, apiKeyHash: string): Promise<void> {
    await this.#db.update(partners).set({ apiKeyHash }).where(eq(partners.id, partnerId));
  }

  async addIntegrationSource(values: Omit<IntegrationSource, 'isDefault'>, isDefault: DefaultChoice): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const existing = await tx.select({ id: integrationSources.id }).from(integrationSources).where(eq(integrationSources.partnerId, values.partnerId));
      const asDefault = isDefault(existing.length);
      if (asDefault) {
        await tx.update(integrationSources).set({ isDefault: false }).where(eq(integrationSources.partnerId, values.partnerId));
      }
      await tx.insert(integrationSources).values({ ...values, isDefault: asDefault });
    });
  }

  async listIntegrationSources(partnerId: string): Promise<IntegrationSource[]> {
    const rows = await this.#db.select().from(integrationSources).where(eq(integrationSources.partnerId, partnerId)).orderBy(asc(integrationSources.createdAt));
    return rows.map((r) => ({ id: r.id, partnerId: r.partnerId, name: r.name, duplicateCheck: r.duplicateCheck, isDefault: r.isDefault, createdAt: r.createdAt }));
  }

  /** A ConflictError when the partner has a processor with this MKey already. */
  /** `withinTransaction`: more rows of the new processor, written in the same transaction. */
  async addProcessor(values: Omit<Processor, 'isDefault'>, isDefault: DefaultChoice, withinTransaction?: (tx: Tx, processorId: string) => Promise<void>): Promise<void> {
    try {
      await this.#db.transaction(async (tx) => {
        const existing = await tx.select({ id: processors.id }).from(processors).where(eq(processors.partnerId, values.partnerId));
        const asDefault = isDefault(existing.length);
        if (asDefault) await tx.update(processors).set({ isDefault: false }).where(eq(processors.partnerId, values.partnerId));
        await tx.insert(processors).values({ ...values, isDefault: asDefault });
        await withinTransaction?.(tx, values.id);
      });
    } catch (err) {
      if (uniqueViolation(err, PROCESSOR_MKEY_UNIQUE)) throw new ConflictError(`"${values.mkey}" is already the MKey of another processor of this partner`);
      throw err;
    }
  }

  async listProcessors(partnerId: string): Promise<Processor[]> {
    const rows = await this.#db.select().from(processors).where(eq(processors.partnerId, partnerId)).orderBy(asc(processors.createdAt));
    return rows.map((r) => ({
      id: r.id,
      partnerId: r.partnerId,
      name: r.name,
      adapter: r.adapter,
      mkey: r.mkey,
      paymentMethodTypes: r.paymentMethodTypes,
      isDefault: r.isDefault,
      createdAt: r.createdAt,
    }));
  }

  async addOrganization(values: Omit<Organization, 'isDefault'>, isDefault: DefaultChoice): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const existing = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.partnerId, values.partnerId));
      const asDefault = isDefault(existing.length);
      if (asDefault) await tx.update(organizations).set({ isDefault: false }).where(eq(organizations.partnerId, values.partnerId));
      await tx.insert(organizations).values({ ...values, isDefault: asDefault });
    });
  }

  async listOrganizations(partnerId: string): Promise<Organization[]> {
    const rows = await this.#db.select().from(organizations).where(eq(organizations.partnerId, partnerId)).orderBy(asc(organizations.createdAt));
    return rows.map((r) => ({ id: r.id, partnerId: r.partnerId, name: r.name, charityId: r.charityId, isDefault: r.isDefault, createdAt: r.createdAt }));
  }
}
