import type { AuthenticatedPartner } from '../../domain/partner.ts';
import type { DbOrTx } from '../../platform/database/database.ts';
import { NotFoundError } from '../../platform/errors.ts';
import type { ReferenceService } from './reference-service.ts';

/** One of a partner's processors, as a request uses it. */
export interface PartnerProcessor {
  id: string;
  /** The processor adapter that serves it (`simulator`). */
  adapter: string;
  /** Its active payment method types (PaymentMethodTypeId). */
  paymentMethodTypes: number[];
}

/** A partner's processors: by guid, by MKey, or the partner's default. */
export class ProcessorService {
  readonly #references: ReferenceService;

  constructor(deps: { references: ReferenceService }) {
    this.#references = deps.references;
  }

  /**
   * The processor a request names (by guid and/or MKey; both must then name the same one), or
   * the partner's default when it names none. Another partner's processor is "not found". `tx`:
   * inside the caller's transaction.
   */
  async resolve(partner: AuthenticatedPartner, ref: { processorId?: string; mkey?: string }, tx?: DbOrTx): Promise<PartnerProcessor> {
    const named = Boolean(ref.processorId || ref.mkey);
    // MKeys are stored trimmed: one with spaces around it names no processor.
    const found = ref.mkey !== undefined && ref.mkey !== ref.mkey.trim() ? null : (await this.#references.resolve(partner.id, ref, tx)).processor;
    if (!found) throw new NotFoundError(named ? 'No such processor.' : 'The partner has no default processor.');
    return { id: found.id, adapter: found.adapter, paymentMethodTypes: found.paymentMethodTypes };
  }
}
