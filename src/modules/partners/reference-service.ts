import type { Clock } from '../../platform/clock.ts';
import type { DbOrTx } from '../../platform/database/database.ts';
import type { ReferenceRepository, ReferencesRow } from './reference-repository.ts';

/** What a request names of the partner's: each optional; text as sent (trimmed and lower-cased here). */
export interface ReferenceQuery {
  processorId?: string;
  mkey?: string;
  integrationSourceId?: string;
  organizationId?: string;
  charityId?: string;
}

/**
 * The partner's references a request names, or its defaults for those it does not name. A named
 * one that is not the partner's (or, a charity, not in the directory) is null: the caller says so
 * in its own words. One place for the rule "is this reference the partner's?".
 */
export interface ResolvedReferences {
  /** The named processor (by ProcessorGuid and/or MKey), or the partner's default when none is named. */
  processor: { id: string; adapter: string; paymentMethodTypes: number[] } | null;
  /** The named integration source, or the partner's default. */
  integrationSource: { id: string; duplicateCheck: boolean } | null;
  /** The named organization, or the partner's default. */
  organizationId: string | null;
  /** The named charity of the directory. */
  charityId: string | null;
  /** Which of the references were named (and so must be found). */
  named: { processor: boolean; integrationSource: boolean; organization: boolean; charity: boolean };
}

/** How long a process reuses the references it found (a change made with the CLI reaches requests within this). */
export const REFERENCES_CACHE_MS = 10_000;

const text = (v: string | undefined) => v?.trim() || null;

export class ReferenceService {
  readonly #repository: ReferenceRepository;
  readonly #clock: Clock;
  readonly #cache = new Map<string, { row: ReferencesRow; expiresAt: number }>();

  constructor(deps: { repository: ReferenceRepository; clock: Clock }) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
  }

  /** `tx`: resolve inside the caller's transaction (one that is open while it asks). */
  async resolve(partnerId: string, query: ReferenceQuery, tx?: DbOrTx): Promise<ResolvedReferences> {
    const processorId = text(query.processorId)?.toLowerCase() ?? null;
    const mkey = text(query.mkey);
    const sourceId = text(query.integrationSourceId)?.toLowerCase() ?? null;
    const orgId = text(query.organizationId)?.toLowerCase() ?? null;
    const charityId = text(query.charityId)?.toLowerCase() ?? null;
    const key = [partnerId, processorId, mkey, sourceId, orgId, charityId].join('|');
    const row = this.#cached(key) ?? (await this.#repository.find(partnerId, processorId, mkey, sourceId, orgId, charityId, tx));
    if (row?.processor && (!sourceId || row.source) && (!orgId || row.organization_id) && (!charityId || row.charity_id)) this.#remember(key, row);
    return {
      processor: row?.processor ? { id: row.processor.id, adapter: row.processor.adapter, paymentMethodTypes: row.processor.payment_method_types } : null,
      integrationSource: row?.source ? { id: row.source.id, duplicateCheck: row.source.duplicate_check } : null,
      organizationId: row?.organization_id ?? null,
      charityId: row?.charity_id ?? null,
      named: { processor: processorId !== null || mkey !== null, integrationSource: sourceId !== null, organization: orgId !== null, charity: charityId !== null },
    };
  }

  /**
   * Found references are reused for REFERENCES_CACHE_MS (like the fee schedules): they change
   * rarely (operator CLI), and the lookup is a round trip on every payment. A reference that was
   * not found is never remembered, so a new processor or source works at once. One read "after"
   * now (the clock was stepped back) is read again.
   */
  #cached(key: string): ReferencesRow | undefined {
    const hit = this.#cache.get(key);
    if (!hit) return undefined;
    const now = this.#clock.now().getTime();
    if (hit.expiresAt <= now || hit.expiresAt - REFERENCES_CACHE_MS > now) {
      this.#cache.delete(key);
      return undefined;
    }
    return hit.row;
  }

  #remember(key: string, row: ReferencesRow): void {
    if (this.#cache.size >= 10_000) this.#cache.clear();
    this.#cache.set(key, { row, expiresAt: this.#clock.now().getTime() + REFERENCES_CACHE_MS });
  }
}
