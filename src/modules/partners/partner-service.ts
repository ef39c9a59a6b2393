import type { Clock } from '../../platform/clock.ts';
import { type FeeSchedule, PAYMENT_NO_FEE_GROUP, scheduleProblems } from '../../domain/fee-schedule.ts';
import { PARTNER_KINDS, type PartnerKind } from '../../domain/partner.ts';
import { GUID, type Ids } from '../../platform/ids.ts';
import { digestsEqual, hashSecret, sha256, verifySecret } from '../../platform/secrets.ts';
import type { Db, DbOrTx, Tx } from '../../platform/database/database.ts';
import { charities, feeSchedules, integrationSources, organizations, partners, processors } from '../../platform/database/schema/index.ts';
import { NotFoundError, OperatorInputError } from '../../platform/errors.ts';
import type { SessionService } from './session-service.ts';
import { and, asc, eq } from '../../platform/database/drizzle.ts';

/** Payment method types a new simulator processor accepts: every card brand, ACH and both wallets. */
export const DEFAULT_PAYMENT_METHOD_TYPES = [1, 2, 3, 4, 5, 6, 7, 8, 9];


export interface PartnerCredentials {
  clientId: string;
  clientSecret: string;
  apiKey: string;
}

export interface PartnerSummary {
  clientId: string;
  name: string;
  kind: PartnerKind;
  status: string;
  createdAt: Date;
}


/** Partner administration: the operator CLI and the demo seed use it. */
export class PartnerService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #sessions: SessionService;

  constructor(db: Db, clock: Clock, ids: Ids, sessions: SessionService) {
    this.#db = db;
    this.#clock = clock;
    this.#ids = ids;
    this.#sessions = sessions;
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
    await this.#db.insert(partners).values({
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
    const rows = await this.#db.select().from(partners).orderBy(asc(partners.createdAt), asc(partners.name));
    return rows.map((r) => ({ clientId: r.id, name: r.name, kind: r.kind, status: r.status, createdAt: r.createdAt }));
  }

  async getPartner(clientId: string, db: DbOrTx = this.#db): Promise<PartnerSummary> {
    if (!GUID.test(clientId)) throw new OperatorInputError(`"${clientId}" is not a ClientId (a UUID)`);
    const [r] = await db.select().from(partners).where(eq(partners.id, clientId.toLowerCase()));
    if (!r) throw new NotFoundError(`no partner with ClientId ${clientId}`);
    return { clientId: r.id, name: r.name, kind: r.kind, status: r.status, createdAt: r.createdAt };
  }

  /** A new ClientSecret; the old one and every session made with it stop working. */
  async rotateSecret(clientId: string): Promise<string> {
    const partner = await this.getPartner(clientId);
    const clientSecret = this.#ids.secret(32);
    await this.#db
      .update(partners)
      .set({ clientSecretHash: await hashSecret(clientSecret), secretRotatedAt: this.#clock.now() })
      .where(eq(partners.id, partner.clientId));
    await this.#sessions.revokeAll(partner.clientId);
    return clientSecret;
  }

  /** A new pay-link ApiKey; the old one stops working. */
  async rotateApiKey(clientId: string): Promise<string> {
    const partner = await this.getPartner(clientId);
    const apiKey = this.#ids.secret(32);
    await this.#db.update(partners).set({ apiKeyHash: sha256(apiKey) }).where(eq(partners.id, partner.clientId));
    return apiKey;
  }

  /** Whether `secret` is the partner's ClientSecret now (the demo banner checks its saved ones). */
  async verifyClientSecret(partnerId: string, secret: string): Promise<boolean> {
    const [r] = await this.#db.select({ h: partners.clientSecretHash }).from(partners).where(eq(partners.id, partnerId));
    return verifySecret(secret, r?.h);
  }

  async verifyApiKey(partnerId: string, apiKey: string): Promise<boolean> {
    const [r] = await this.#db.select({ h: partners.apiKeyHash }).from(partners).where(eq(partners.id, partnerId));
    return !!r && digestsEqual(r.h, sha256(apiKey));
  }

  async createIntegrationSource(clientId: string, input: { name: string; duplicateCheck: boolean; isDefault?: boolean }) {
    const partner = await this.getPartner(clientId);
    const id = this.#ids.uuid();
    await this.#db.transaction(async (tx) => {
      const existing = await tx.select({ id: integrationSources.id }).from(integrationSources).where(eq(integrationSources.partnerId, partner.clientId));
      // The first source of a partner is its default (used when a request names none).
      const isDefault = input.isDefault ?? existing.length === 0;
      if (isDefault) {
        await tx.update(integrationSources).set({ isDefault: false }).where(eq(integrationSources.partnerId, partner.clientId));
      }
      await tx.insert(integrationSources).values({
        id,
        partnerId: partner.clientId,
        name: input.name.trim() || 'Integration source',
        duplicateCheck: input.duplicateCheck,
        isDefault,
        createdAt: this.#clock.now(),
      });
    });
    return id;
  }

  async listIntegrationSources(clientId: string) {
    return this.#db.select().from(integrationSources).where(eq(integrationSources.partnerId, clientId)).orderBy(asc(integrationSources.createdAt));
  }

  /**
   * `adapter` (issue 30): the processor adapter's name, 'simulator' unless given. `withinTransaction`:
   * more rows of the new processor (its sealed credentials), written in the same transaction.
   */
  async createProcessor(
    clientId: string,
    input: { name: string; mkey?: string; paymentMethodTypes?: number[]; isDefault?: boolean; adapter?: string },
    withinTransaction?: (tx: Tx, processorId: string) => Promise<void>,
  ) {
    const partner = await this.getPartner(clientId);
    const types = input.paymentMethodTypes ?? DEFAULT_PAYMENT_METHOD_TYPES;
    for (const t of types) {
      if (!Number.isInteger(t) || t < 1 || t > 10) throw new OperatorInputError(`payment method type ${t} is not 1-10`);
    }
    const id = this.#ids.uuid();
    await this.#db.transaction(async (tx) => {
      const existing = await tx.select({ id: processors.id }).from(processors).where(eq(processors.partnerId, partner.clientId));
      const isDefault = input.isDefault ?? existing.length === 0;
      if (isDefault) await tx.update(processors).set({ isDefault: false }).where(eq(processors.partnerId, partner.clientId));
      await tx.insert(processors).values({
        id,
        partnerId: partner.clientId,
        name: input.name.trim() || 'Simulator',
        adapter: input.adapter ?? 'simulator',
        mkey: input.mkey?.trim() || `mk-${this.#ids.secret(9)}`,
        paymentMethodTypes: [...new Set(types)].sort((a, b) => a - b),
        isDefault,
        createdAt: this.#clock.now(),
      });
      await withinTransaction?.(tx, id);
    });
    return id;
  }

  async listProcessors(clientId: string) {
    return this.#db.select().from(processors).where(eq(processors.partnerId, clientId)).orderBy(asc(processors.createdAt));
  }

  async createOrganization(clientId: string, input: { name: string; charityId?: string; isDefault?: boolean }) {
    const partner = await this.getPartner(clientId);
    if (input.charityId !== undefined && !GUID.test(input.charityId)) throw new OperatorInputError('charityId must be a UUID');
    if (input.charityId !== undefined) {
      // Payments made for the organization carry its charity: it must be in the directory.
      const [known] = await this.#db.select({ id: charities.id }).from(charities).where(eq(charities.id, input.charityId.toLowerCase()));
      if (!known) throw new OperatorInputError(`no charity ${input.charityId} in the directory (GET /api/CharitySearch gives CharityIds)`);
    }
    const id = this.#ids.uuid();
    await this.#db.transaction(async (tx) => {
      const existing = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.partnerId, partner.clientId));
      const isDefault = input.isDefault ?? existing.length === 0;
      if (isDefault) await tx.update(organizations).set({ isDefault: false }).where(eq(organizations.partnerId, partner.clientId));
      await tx.insert(organizations).values({
        id,
        partnerId: partner.clientId,
        name: input.name.trim() || 'Organization',
        charityId: input.charityId ?? null,
        isDefault,
        createdAt: this.#clock.now(),
      });
    });
    return id;
  }

  async listOrganizations(clientId: string) {
    return this.#db.select().from(organizations).where(eq(organizations.partnerId, clientId)).orderBy(asc(organizations.createdAt));
  }

  /** The partner's contract: its fee schedules by TransactionSourceGroupId. */
  async getContract(clientId: string, db: DbOrTx = this.#db): Promise<FeeSchedule[]> {
    const rows = await db.select().from(feeSchedules).where(eq(feeSchedules.partnerId, clientId)).orderBy(asc(feeSchedules.groupId));
    return rows.map(toSchedule);
  }

  async getSchedule(partnerId: string, groupId: number, db: DbOrTx = this.#db): Promise<FeeSchedule | undefined> {
    const [row] = await db
      .select()
      .from(feeSchedules)
      .where(and(eq(feeSchedules.partnerId, partnerId), eq(feeSchedules.groupId, groupId)));
    return row ? toSchedule(row) : undefined;
  }

  /** Creates or replaces the schedule of one group. */
  async setSchedule(clientId: string, schedule: FeeSchedule): Promise<void> {
    const partner = await this.getPartner(clientId);
    const problems = scheduleProblems(schedule);
    // A schedule its partner's payments can never use is a mistake (ErrorCode 2000 on every line).
    if (partner.kind === 'for-profit' && schedule.groupId !== PAYMENT_NO_FEE_GROUP) problems.push(`a for-profit partner pays with group ${PAYMENT_NO_FEE_GROUP} only`);
    if (partner.kind === 'non-profit' && schedule.groupId === PAYMENT_NO_FEE_GROUP) problems.push(`group ${PAYMENT_NO_FEE_GROUP} is for for-profit partners`);
    if (problems.length) throw new OperatorInputError(problems.join('; '));
    const values = {
      partnerId: partner.clientId,
      groupId: schedule.groupId,
      cardFeeRate: schedule.cardFeeRate,
      platformCommissionRate: schedule.platformCommissionRate,
      maxCommissionRate: schedule.maxCommissionRate,
      perTransFeeCents: schedule.perTransFeeCents,
      cardTypeFees: schedule.cardTypeFeesCents,
      achFeeRate: schedule.achFeeRate,
      achFeeCapCents: schedule.achFeeCapCents,
      updatedAt: this.#clock.now(),
    };
    await this.#db
      .insert(feeSchedules)
      .values(values)
      .onConflictDoUpdate({ target: [feeSchedules.partnerId, feeSchedules.groupId], set: values });
  }

  async removeSchedule(clientId: string, groupId: number): Promise<boolean> {
    const gone = await this.#db
      .delete(feeSchedules)
      .where(and(eq(feeSchedules.partnerId, clientId), eq(feeSchedules.groupId, groupId)))
      .returning({ g: feeSchedules.groupId });
    return gone.length > 0;
  }
}

function toSchedule(row: typeof feeSchedules.$inferSelect): FeeSchedule {
  return {
    groupId: row.groupId,
    cardFeeRate: normalizeRate(row.cardFeeRate),
    platformCommissionRate: normalizeRate(row.platformCommissionRate),
    maxCommissionRate: normalizeRate(row.maxCommissionRate),
    perTransFeeCents: Number(row.perTransFeeCents),
    cardTypeFeesCents: row.cardTypeFees ?? {},
    achFeeRate: normalizeRate(row.achFeeRate),
    achFeeCapCents: row.achFeeCapCents === null ? null : Number(row.achFeeCapCents),
  };
}

/** numeric comes back as text with whatever scale it was stored with: "2.90" -> "2.9". */
function normalizeRate(text: string): string {
  if (!text.includes('.')) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}
