import type { Clock } from '../../platform/clock.ts';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import { MAX_CENTS } from '../../domain/money.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import type { Ids } from '../../platform/ids.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';
import type { FeeService } from '../fees/fee-service.ts';
import type { PartnerService } from '../partners/partner-service.ts';
import type { ReferenceService, ResolvedReferences } from '../partners/reference-service.ts';
import type { TokenService } from '../vault/token-service.ts';
import { type PayLinkCreateInput, type PayLinkLine, WORKFLOW_PAYMENT, linkCurrency, payLinkViolations, themeFontFamily, workflowOf } from './paylink-rules.ts';
import { PAY_LINK_ID, PAY_LINK_ID_BYTES, PAY_LINK_LEASE_MS, type PayLink, type PayLinkLease, type PayLinkSettings, feeLineOf } from './paylink.ts';
import type { PayLinkRepository } from './paylink-repository.ts';

export { PAY_LINK_ID, PAY_LINK_LEASE_MS, feeLineOf, payLinkRef } from './paylink.ts';
export type { PayLink, PayLinkLease, PayLinkSettings, PayLinkStatus } from './paylink.ts';

const text = (v: string | undefined): string | null => (v === undefined || v.trim() === '' ? null : v.trim());

/** The parts of other modules a pay link uses. */
export interface PayLinkServiceDeps {
  repository: Pick<PayLinkRepository, keyof PayLinkRepository>;
  clock: Clock;
  ids: Ids;
  fees: Pick<FeeService, 'quote'>;
  /** Is the processor or integration source the link names the partner's (and the partner's default source). */
  references: Pick<ReferenceService, 'resolve'>;
  /** The name of a named integration source (the default PoweredByText). */
  partners: Pick<PartnerService, 'listIntegrationSources'>;
  tokens: Pick<TokenService, 'find'>;
  site: { publicBaseUrl: string; providerName: string; providerUrl: string };
}

/**
 * Pay links: create and cancel (surface A), and the link as the hosted page reads and holds it.
 * A link is `active` until its one successful payment (or stored card) makes it `completed`, or
 * the partner cancels it. WorkflowType 4 links stay active: they manage cards, they take nothing.
 */
export class PayLinkService {
  readonly #repository: PayLinkServiceDeps['repository'];
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #fees: PayLinkServiceDeps['fees'];
  readonly #references: PayLinkServiceDeps['references'];
  readonly #partners: PayLinkServiceDeps['partners'];
  readonly #tokens: PayLinkServiceDeps['tokens'];
  readonly #site: PayLinkServiceDeps['site'];

  constructor(deps: PayLinkServiceDeps) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#fees = deps.fees;
    this.#references = deps.references;
    this.#partners = deps.partners;
    this.#tokens = deps.tokens;
    this.#site = deps.site;
  }

  /** PayLinkUrl of a PayLinkId. */
  urlOf(id: string): string {
    return `${this.#site.publicBaseUrl}/paylink/${id}`;
  }

  /** Validates everything (formats, references, fees), stores the link and returns it. */
  async create(partner: AuthenticatedPartner, input: PayLinkCreateInput): Promise<PayLink> {
    const violations = payLinkViolations(input);
    const failed = new Set(violations.map((v) => v.field));
    const refs = await this.#namedReferences(partner, input, failed);
    violations.push(...refs.violations);
    const workflow = workflowOf(input.workflowType) ?? WORKFLOW_PAYMENT;
    const lines: PayLinkLine[] = input.lines.map((l) => ({
      amountCents: l.amountCents ?? 0,
      type: l.type ?? 0,
      recurring: l.recurring ?? 0,
      payFee: l.payFee ?? false,
      ...(l.externalLineId?.trim() ? { externalLineId: l.externalLineId.trim() } : {}),
    }));
    if (violations.length === 0 && workflow === WORKFLOW_PAYMENT) violations.push(...(await this.#feeViolations(partner, lines)));
    const tranId = text(input.tranId);
    if (violations.length === 0 && workflow === WORKFLOW_PAYMENT && tranId) {
      const source = (refs.resolved ?? (await this.#references.resolve(partner.id, {}))).integrationSource;
      violations.push(...(await this.#tranIdViolations(source, tranId)));
    }
    if (violations.length > 0) throw new ValidationError(violations);

    const settings: PayLinkSettings = {
      ipAddress: text(input.ipAddress),
      showTransactionId: input.showTransactionId ?? false,
      transactionIdText: text(input.transactionIdText),
      poweredByText: text(input.poweredByText) ?? (await this.#sourceName(partner, refs.integrationSourceId)) ?? this.#site.providerName,
      poweredByUrl: text(input.poweredByUrl) ?? this.#site.providerUrl,
      donateButtonText: text(input.donateButtonText),
      language: text(input.language) ?? 'en',
      defaultCountryCode: text(input.defaultCountryCode)?.toUpperCase() ?? null,
      theme: text(input.theme),
      themeFonts: (input.themeFonts ?? []).map((f) => themeFontFamily(f)!).filter((f, i, all) => all.indexOf(f) === i),
      prefill: {
        firstName: text(input.firstName),
        lastName: text(input.lastName),
        email: text(input.email),
        street: text(input.street),
        city: text(input.city),
        state: text(input.state)?.toUpperCase() ?? null,
        zip: text(input.zip),
        country: text(input.country)?.toUpperCase() ?? null,
        phone: text(input.phone),
      },
      tokenizeCard: input.tokenizeCard ?? false,
      savedCardTokenId: refs.savedCardTokenId,
      savedBankTokenId: refs.savedBankTokenId,
      externalEventId: text(input.externalEventId),
      externalEventName: text(input.externalEventName),
      externalConstituentId: text(input.externalConstituentId),
      externalCustomerId: text(input.externalCustomerId),
      currency: linkCurrency(input.country, input.defaultCountryCode),
    };
    const stored = {
      id: this.#ids.secret(PAY_LINK_ID_BYTES),
      integrationSourceId: refs.integrationSourceId,
      processorId: refs.processorId,
      workflowType: workflow,
      redirectUrl: input.redirectUrl!.trim(),
      tranId,
      lines,
      settings,
      createdAt: this.#clock.now(),
    };
    await this.#repository.insert({ ...stored, partnerId: partner.id });
    return { ...stored, url: this.urlOf(stored.id), partner, status: 'active', paymentId: null, tokenId: null, recurringProfileId: null };
  }

  /**
   * Cancels a link of the partner and returns its PayLinkUrl. Cancelling again answers the same
   * (DELETE is idempotent); an unknown id or another partner's is not found.
   */
  async cancel(partner: AuthenticatedPartner, id: string): Promise<string> {
    const key = id.trim();
    if (!PAY_LINK_ID.test(key) || !(await this.#repository.cancel(partner.id, key, this.#clock.now()))) throw new NotFoundError('No such pay link.');
    return this.urlOf(key);
  }

  /** The link behind a PayLinkId, whatever its status; undefined when there is none (or its partner is disabled). */
  async find(id: string): Promise<PayLink | undefined> {
    if (!PAY_LINK_ID.test(id)) return undefined;
    const found = await this.#repository.find(id);
    if (!found?.partnerActive) return undefined;
    return { ...found.link, url: this.urlOf(found.link.id) };
  }

  /**
   * Holds an active link for one submission (PAY_LINK_LEASE_MS). Undefined when the link is no
   * longer active or another submission holds it: two submissions never both pay. Nor while a
   * payment made through the link may have charged the payer (its outcome unknown: the process
   * stopped between the processor call and the record, until `payments pending resolve` settles
   * it) or did (a success whose completion of the link could not be recorded), however long
   * after the lease that is.
   */
  async hold(id: string): Promise<PayLinkLease | undefined> {
    const now = this.#clock.now();
    const until = new Date(now.getTime() + PAY_LINK_LEASE_MS);
    return (await this.#repository.hold(id, now, until)) ? { id, until } : undefined;
  }

  /**
   * Lets another submission in (after a decline or a refused form). Only the lease's holder can:
   * false (nothing changed) when the lease was taken over or the link is no longer active.
   */
  async release(lease: PayLinkLease): Promise<boolean> {
    return this.#repository.release(lease);
  }

  /**
   * Records the link's one success, under the submission's lease. False (nothing changed) when
   * the lease was lost: taken over by another submission after it expired, or the link was
   * completed or cancelled meanwhile. The caller must then undo what it did (void the payment).
   */
  async complete(lease: PayLinkLease, outcome: { paymentId?: string; tokenId?: string }): Promise<boolean> {
    return this.#repository.complete(lease, outcome, this.#clock.now());
  }

  /**
   * Completes a link that is still active although a payment through it succeeded (its
   * submission could not record the completion): true when it did. Any visitor's attempt to pay
   * such a link comes here, since `hold` refuses it.
   */
  async completeWithItsPayment(id: string): Promise<boolean> {
    const paid = await this.#repository.firstSuccessfulPayment(id);
    return paid !== undefined && (await this.#repository.completeWithPayment(id, paid, this.#clock.now()));
  }

  /** The payment a link was completed with, read whatever the state of its partner. */
  async paymentIdOf(id: string): Promise<string | null> {
    return this.#repository.paymentIdOf(id);
  }

  async setRecurringProfile(id: string, profileId: string): Promise<void> {
    await this.#repository.setRecurringProfile(id, profileId);
  }

  /**
   * A TranId that a payment of the link's integration source (the one named, else the partner's
   * default) already holds under duplicate checking: the link could never be paid, and its payer
   * would be told to try another card. Refused when the link is made; a payment that takes the
   * TranId later still closes the link to payment, as the duplicate check does for any payment.
   */
  async #tranIdViolations(source: ResolvedReferences['integrationSource'], tranId: string): Promise<RuleViolation[]> {
    if (!source?.duplicateCheck) return [];
    const held = await this.#repository.paymentHoldingTranId(source.id, tranId);
    if (!held) return [];
    return [
      {
        code: Rule.PayLinkTranIdUsed,
        field: 'tranId',
        message: `{tranId} is already the TranId of payment ${held} of this integration source: a link with it could never be paid.`,
      },
    ];
  }

  /** The processor, integration source and tokens the link names: the partner's, else violations. */
  async #namedReferences(partner: AuthenticatedPartner, input: PayLinkCreateInput, failed: Set<string | undefined>) {
    const violations: RuleViolation[] = [];
    const unknown = (field: string, what: string) => violations.push({ code: Rule.UnknownReference, field, message: `{${field}} is not one of the partner's ${what}.` });
    const given = (field: string, value: string | undefined): value is string => value !== undefined && value.trim() !== '' && !failed.has(field);

    const processorNamed = given('processorGuid', input.processorGuid);
    const sourceNamed = given('integrationSource', input.integrationSource);
    const resolved =
      processorNamed || sourceNamed
        ? await this.#references.resolve(partner.id, {
            processorId: processorNamed ? input.processorGuid : undefined,
            integrationSourceId: sourceNamed ? input.integrationSource : undefined,
          })
        : undefined;

    let processorId: string | null = null;
    if (processorNamed) {
      if (resolved?.processor) processorId = resolved.processor.id;
      else unknown('processorGuid', 'processors');
    } else if (partner.kind === 'for-profit' && !failed.has('processorGuid')) {
      // A for-profit partner's payments name their processor; the link names it for the page.
      violations.push({ code: Rule.ProcessorRequired, field: 'processorGuid', message: '{processorGuid} is required for a for-profit partner.' });
    }

    let integrationSourceId: string | null = null;
    if (sourceNamed) {
      if (resolved?.integrationSource) integrationSourceId = resolved.integrationSource.id;
      else unknown('integrationSource', 'integration sources');
    }

    let savedCardTokenId: string | null = null;
    let savedBankTokenId: string | null = null;
    if (given('tokenGuid', input.tokenGuid)) {
      const token = await this.#tokens.find(partner.id, input.tokenGuid);
      if (!token) unknown('tokenGuid', 'active tokens');
      else if (token.kind === 'card') savedCardTokenId = token.id;
      else savedBankTokenId = token.id;
    }
    if (given('externalCardToken', input.externalCardToken)) {
      const token = await this.#tokens.find(partner.id, input.externalCardToken);
      if (!token) unknown('externalCardToken', 'card tokens');
      else if (token.kind !== 'card') {
        violations.push({ code: Rule.PayLinkTokenKindMismatch, field: 'externalCardToken', message: '{externalCardToken} is a bank-account token (a CheckInfoKey), not a card.' });
      } else savedCardTokenId = token.id;
    }
    if (given('externalCheckToken', input.externalCheckToken)) {
      const token = await this.#tokens.find(partner.id, input.externalCheckToken);
      if (!token) unknown('externalCheckToken', 'bank-account tokens');
      else if (token.kind !== 'bank') {
        violations.push({ code: Rule.PayLinkTokenKindMismatch, field: 'externalCheckToken', message: '{externalCheckToken} is a card token (a CcInfoKey), not a bank account.' });
      } else if (savedBankTokenId && savedBankTokenId !== token.id) {
        violations.push({ code: Rule.PayLinkTokenConflict, field: 'externalCheckToken', message: '{externalCheckToken} names another bank account than {tokenGuid}; send one.' });
      } else savedBankTokenId = token.id;
    }
    return { violations, resolved, processorId, integrationSourceId, savedCardTokenId, savedBankTokenId };
  }

  /** The name of the link's integration source, the default PoweredByText. */
  async #sourceName(partner: AuthenticatedPartner, integrationSourceId: string | null): Promise<string | null> {
    if (!integrationSourceId) return null;
    const sources = await this.#partners.listIntegrationSources(partner.id);
    return sources.find((s) => s.id === integrationSourceId)?.name ?? null;
  }

  /** The lines must be payable: the group fits the partner's kind and its contract has a schedule. */
  async #feeViolations(partner: AuthenticatedPartner, lines: PayLinkLine[]): Promise<RuleViolation[]> {
    try {
      const quote = await this.#fees.quote(partner, {
        lines: lines.map(feeLineOf),
        lineField: (i, field) => `PaymentLines[${i}].${field === 'transactionSourceGroupId' ? 'Type' : field}`,
      });
      // Every payment is refused above MAX_CENTS: a link over it could never be paid.
      if (quote.totalPaymentCents > MAX_CENTS) return [{ code: Rule.OutOfRange, field: 'paymentLines', message: 'must add up to at most 9999999999.99 (with the fees the payer covers)' }];
      return [];
    } catch (err) {
      if (err instanceof ValidationError) return err.violations as RuleViolation[];
      if (err instanceof NotFoundError) return [{ code: Rule.NoFeeSchedule, field: 'paymentLines', message: err.message }];
      throw err;
    }
  }
}
