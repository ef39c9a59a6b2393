import type { Clock } from '../../platform/clock.ts';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import { PaymentResult } from '../../domain/payment-status.ts';
import type { FeeLineInput } from '../../domain/fees.ts';
import { MAX_CENTS } from '../../domain/money.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import type { Ids } from '../../platform/ids.ts';
import { fingerprint } from '../../platform/logging.ts';
import type { Db } from '../../platform/database/database.ts';
import { integrationSources, partners, payLinks, payments } from '../../platform/database/schema/index.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';
import type { FeeService } from '../fees/fee-service.ts';
import {
  type PayLinkCreateInput,
  type PayLinkLine,
  WORKFLOW_PAYMENT,
  type WorkflowType,
  linkCurrency,
  payLinkViolations,
  themeFontFamily,
  workflowOf,
} from './paylink-rules.ts';
import type { ProcessorService } from '../partners/processor-service.ts';
import type { TokenService } from '../vault/token-service.ts';
import { and, asc, eq, inArray, isNull, lt, ne, notExists, or, sql } from '../../platform/database/drizzle.ts';

/** Everything the page shows or passes on, fixed when the link is made. */
export interface PayLinkSettings {
  ipAddress: string | null;
  showTransactionId: boolean;
  transactionIdText: string | null;
  /** The link's text, or the default (integration source name, else the provider name). */
  poweredByText: string;
  poweredByUrl: string;
  /** null: the page's translated default ("Submit Payment"). */
  donateButtonText: string | null;
  /** As sent (default `en`); the page resolves it to one of its languages. */
  language: string;
  defaultCountryCode: string | null;
  /** Sanitized CSS, scoped to the page. */
  theme: string | null;
  /** Local font family names, in order of preference. */
  themeFonts: string[];
  prefill: {
    firstName: string | null;
    lastName: string | null;
    email: string | null;
    street: string | null;
    city: string | null;
    state: string | null;
    zip: string | null;
    country: string | null;
    phone: string | null;
  };
  tokenizeCard: boolean;
  /** TokenGuid or ExternalCardToken, resolved to the card token's TokenGuid. */
  savedCardTokenId: string | null;
  /** TokenGuid (a bank account) or ExternalCheckToken, resolved to the token's TokenGuid. */
  savedBankTokenId: string | null;
  externalEventId: string | null;
  externalEventName: string | null;
  externalConstituentId: string | null;
  externalCustomerId: string | null;
  /** Fixed for the link: from Country, else DefaultCountryCode. */
  currency: string;
}

export type PayLinkStatus = 'active' | 'completed' | 'cancelled';

export interface PayLink {
  id: string;
  url: string;
  partner: AuthenticatedPartner;
  integrationSourceId: string | null;
  processorId: string | null;
  workflowType: WorkflowType;
  status: PayLinkStatus;
  redirectUrl: string;
  tranId: string | null;
  lines: PayLinkLine[];
  settings: PayLinkSettings;
  paymentId: string | null;
  tokenId: string | null;
  recurringProfileId: string | null;
  createdAt: Date;
}

/**
 * How long a submission holds a link. Far longer than one processor call can take (the simulator's
 * SIMULATOR_LATENCY_MS is at most 60 s; a real adapter must time out well within this), so a live
 * submission does not lose its lease; a crashed one blocks the link ("busy") for at most this long
 * when it charged nothing (when its payment may have charged, the payment blocks the link: see
 * `hold`). A submission that loses its lease anyway cannot complete the link (the lease is a
 * fencing token) and voids its payment.
 */
export const PAY_LINK_LEASE_MS = 10 * 60_000;

/**
 * A submission's hold on a link: the fencing token `complete` and `release` must present. It is
 * the lease's expiry instant, which is unique among the submissions that may still act on the
 * link: a lease is taken over only once it has expired (`lease_until < now`), and the new one ends
 * at `now + PAY_LINK_LEASE_MS`, later than every lease before it; a submission that released its
 * lease has finished and never presents it again.
 */
export interface PayLinkLease {
  readonly id: string;
  readonly until: Date;
}
/** A link's payment in one of these states blocks another (migrations/0011_pay_link_payments.sql). */
const MAY_HAVE_CHARGED = [PaymentResult.Pending, PaymentResult.Processing, PaymentResult.Successful];

/** PayLinkId: 18 random bytes, 24 base64url characters, 144 bits. */
const PAY_LINK_ID_BYTES = 18;
export const PAY_LINK_ID = /^[A-Za-z0-9_-]{24}$/;

/**
 * What the logs say of a pay link: the log fingerprint of its id (a short hash, the same that
 * stands for the id in logged request URLs), never the id, which is the page's only key.
 */
export function payLinkRef(id: string): string {
  return fingerprint(id);
}

const text = (v: string | undefined): string | null => (v === undefined || v.trim() === '' ? null : v.trim());

/** The fee engine's line of a pay link line. */
export function feeLineOf(line: PayLinkLine): FeeLineInput {
  return {
    transactionSourceGroupId: line.type,
    amountCents: line.amountCents,
    payFee: line.payFee,
    tipCents: 0,
    taxCents: 0,
    externalLineId: line.externalLineId,
  };
}

/**
 * Pay links: create and cancel (surface A), and the link as the hosted page reads and holds it.
 * A link is `active` until its one successful payment (or stored card) makes it `completed`, or
 * the partner cancels it. WorkflowType 4 links stay active: they manage cards, they take nothing.
 */
export class PayLinkService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #fees: FeeService;
  readonly #processors: ProcessorService;
  readonly #tokens: TokenService;
  readonly #site: { publicBaseUrl: string; providerName: string; providerUrl: string };

  constructor(deps: {
    db: Db;
    clock: Clock;
    ids: Ids;
    fees: FeeService;
    processors: ProcessorService;
    tokens: TokenService;
    site: { publicBaseUrl: string; providerName: string; providerUrl: string };
  }) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#fees = deps.fees;
    this.#processors = deps.processors;
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
    const refs = await this.#references(partner, input, failed);
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
    if (violations.length === 0 && workflow === WORKFLOW_PAYMENT && text(input.tranId)) {
      violations.push(...(await this.#tranIdViolations(partner, refs.integrationSourceId, text(input.tranId)!)));
    }
    if (violations.length > 0) throw new ValidationError(violations);

    const settings: PayLinkSettings = {
      ipAddress: text(input.ipAddress),
      showTransactionId: input.showTransactionId ?? false,
      transactionIdText: text(input.transactionIdText),
      poweredByText: text(input.poweredByText) ?? refs.sourceName ?? this.#site.providerName,
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
    const id = this.#ids.secret(PAY_LINK_ID_BYTES);
    const createdAt = this.#clock.now();
    await this.#db.insert(payLinks).values({
      id,
      partnerId: partner.id,
      integrationSourceId: refs.integrationSourceId,
      processorId: refs.processorId,
      workflowType: workflow,
      status: 'active',
      redirectUrl: input.redirectUrl!.trim(),
      tranId: text(input.tranId),
      lines,
      settings: settings as unknown as Record<string, unknown>,
      createdAt,
    });
    return {
      id,
      url: this.urlOf(id),
      partner,
      integrationSourceId: refs.integrationSourceId,
      processorId: refs.processorId,
      workflowType: workflow,
      status: 'active',
      redirectUrl: input.redirectUrl!.trim(),
      tranId: text(input.tranId),
      lines,
      settings,
      paymentId: null,
      tokenId: null,
      recurringProfileId: null,
      createdAt,
    };
  }

  /**
   * Cancels a link of the partner and returns its PayLinkUrl. Cancelling again answers the same
   * (DELETE is idempotent); an unknown id or another partner's is not found.
   */
  async cancel(partner: AuthenticatedPartner, id: string): Promise<string> {
    const key = id.trim();
    if (!PAY_LINK_ID.test(key)) throw new NotFoundError('No such pay link.');
    const [row] = await this.#db
      .update(payLinks)
      .set({ status: 'cancelled', cancelledAt: sql`coalesce(${payLinks.cancelledAt}, ${this.#clock.now()})` })
      .where(and(eq(payLinks.id, key), eq(payLinks.partnerId, partner.id)))
      .returning({ id: payLinks.id });
    if (!row) throw new NotFoundError('No such pay link.');
    return this.urlOf(row.id);
  }

  /** The link behind a PayLinkId, whatever its status; undefined when there is none (or its partner is disabled). */
  async find(id: string): Promise<PayLink | undefined> {
    if (!PAY_LINK_ID.test(id)) return undefined;
    const [row] = await this.#db
      .select({ link: payLinks, partnerName: partners.name, partnerKind: partners.kind, partnerStatus: partners.status })
      .from(payLinks)
      .innerJoin(partners, eq(partners.id, payLinks.partnerId))
      .where(eq(payLinks.id, id));
    if (!row || row.partnerStatus !== 'active') return undefined;
    const l = row.link;
    return {
      id: l.id,
      url: this.urlOf(l.id),
      partner: { id: l.partnerId, name: row.partnerName, kind: row.partnerKind },
      integrationSourceId: l.integrationSourceId,
      processorId: l.processorId,
      workflowType: l.workflowType as WorkflowType,
      status: l.status,
      redirectUrl: l.redirectUrl,
      tranId: l.tranId,
      lines: l.lines as PayLinkLine[],
      settings: l.settings as unknown as PayLinkSettings,
      paymentId: l.paymentId,
      tokenId: l.tokenId,
      recurringProfileId: l.recurringProfileId,
      createdAt: l.createdAt,
    };
  }

  /**
   * Holds an active link for one submission (PAY_LINK_LEASE_MS). Undefined when the link is no
   * longer active or another submission holds it: two submissions never both pay.
   */
  async hold(id: string): Promise<PayLinkLease | undefined> {
    const now = this.#clock.now();
    const until = new Date(now.getTime() + PAY_LINK_LEASE_MS);
    const rows = await this.#db
      .update(payLinks)
      .set({ leaseUntil: until })
      .where(
        and(
          eq(payLinks.id, id),
          eq(payLinks.status, 'active'),
          or(isNull(payLinks.leaseUntil), lt(payLinks.leaseUntil, now)),
          // No second payment while one made through the link may have charged the payer (its
          // outcome unknown: the process stopped between the processor call and the record, until
          // `payments pending resolve` settles it) or did (a success whose completion of the link
          // could not be recorded), however long after the lease that is.
          notExists(
            this.#db
              .select({ one: sql`1` })
              .from(payments)
              .where(and(eq(payments.payLinkId, id), inArray(payments.paymentResult, MAY_HAVE_CHARGED))),
          ),
        ),
      )
      .returning({ id: payLinks.id });
    return rows.length === 1 ? { id, until } : undefined;
  }

  /**
   * Lets another submission in (after a decline or a refused form). Only the lease's holder can:
   * false (nothing changed) when the lease was taken over or the link is no longer active.
   */
  async release(lease: PayLinkLease): Promise<boolean> {
    const rows = await this.#db
      .update(payLinks)
      .set({ leaseUntil: null })
      .where(this.#held(lease))
      .returning({ id: payLinks.id });
    return rows.length === 1;
  }

  /**
   * Records the link's one success, under the submission's lease. False (nothing changed) when
   * the lease was lost: taken over by another submission after it expired, or the link was
   * completed or cancelled meanwhile. The caller must then undo what it did (void the payment).
   */
  async complete(lease: PayLinkLease, outcome: { paymentId?: string; tokenId?: string }): Promise<boolean> {
    const rows = await this.#db
      .update(payLinks)
      .set({
        status: 'completed',
        paymentId: outcome.paymentId ?? null,
        tokenId: outcome.tokenId ?? null,
        completedAt: this.#clock.now(),
        leaseUntil: null,
      })
      .where(this.#held(lease))
      .returning({ id: payLinks.id });
    return rows.length === 1;
  }

  /**
   * Completes a link that is still active although a payment through it succeeded (its
   * submission could not record the completion): true when it did. Any visitor's attempt to pay
   * such a link comes here, since `hold` refuses it.
   */
  async completeWithItsPayment(id: string): Promise<boolean> {
    const [paid] = await this.#db
      .select({ id: payments.id })
      .from(payments)
      .where(and(eq(payments.payLinkId, id), eq(payments.paymentResult, PaymentResult.Successful)))
      .orderBy(asc(payments.createdAt))
      .limit(1);
    if (!paid) return false;
    const rows = await this.#db
      .update(payLinks)
      .set({ status: 'completed', paymentId: paid.id, completedAt: this.#clock.now(), leaseUntil: null })
      .where(and(eq(payLinks.id, id), eq(payLinks.status, 'active')))
      .returning({ id: payLinks.id });
    return rows.length === 1;
  }

  /** The payment a link was completed with, read whatever the state of its partner. */
  async paymentIdOf(id: string): Promise<string | null> {
    const [row] = await this.#db.select({ paymentId: payLinks.paymentId }).from(payLinks).where(eq(payLinks.id, id));
    return row?.paymentId ?? null;
  }

  #held(lease: PayLinkLease) {
    return and(eq(payLinks.id, lease.id), eq(payLinks.status, 'active'), eq(payLinks.leaseUntil, lease.until));
  }

  async setRecurringProfile(id: string, profileId: string): Promise<void> {
    await this.#db.update(payLinks).set({ recurringProfileId: profileId }).where(eq(payLinks.id, id));
  }

  /**
   * A TranId that a payment of the link's integration source already holds (duplicate checking
   * on): the link could never be paid, and its payer would be told to try another card (a
   * partner audit). Refused when the link is made; a payment that takes the TranId later still
   * closes the link to payment, as the duplicate check does for any payment.
   */
  async #tranIdViolations(partner: AuthenticatedPartner, integrationSourceId: string | null, tranId: string): Promise<RuleViolation[]> {
    // The source the link's payment will be checked under: the one named, else the partner's default.
    const [source] = await this.#db
      .select({ id: integrationSources.id, duplicateCheck: integrationSources.duplicateCheck })
      .from(integrationSources)
      .where(and(eq(integrationSources.partnerId, partner.id), integrationSourceId ? eq(integrationSources.id, integrationSourceId) : eq(integrationSources.isDefault, true)));
    if (!source?.duplicateCheck) return [];
    // The conditions of payments_tran_id_once, the index the duplicate check is.
    const [held] = await this.#db
      .select({ id: payments.id })
      .from(payments)
      .where(
        and(
          eq(payments.integrationSourceId, source.id),
          eq(payments.tranId, tranId),
          eq(payments.duplicateChecked, true),
          ne(payments.paymentResult, PaymentResult.Failed),
        ),
      )
      .limit(1);
    if (!held) return [];
    return [
      {
        code: Rule.PayLinkTranIdUsed,
        field: 'TranId',
        message: `'TranId' is already the TranId of payment ${held.id} of this integration source: a link with it could never be paid.`,
      },
    ];
  }

  async #references(partner: AuthenticatedPartner, input: PayLinkCreateInput, failed: Set<string | undefined>) {
    const violations: RuleViolation[] = [];
    const unknown = (field: string, what: string) =>
      violations.push({ code: Rule.UnknownReference, field, message: `'${field}' is not one of the partner's ${what}.` });
    const given = (field: string, value: string | undefined): value is string => value !== undefined && value.trim() !== '' && !failed.has(field);

    let processorId: string | null = null;
    if (given('ProcessorGuid', input.processorGuid)) {
      try {
        processorId = (await this.#processors.resolve(partner, { processorId: input.processorGuid.trim() })).id;
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        unknown('ProcessorGuid', 'processors');
      }
    } else if (partner.kind === 'for-profit' && !failed.has('ProcessorGuid')) {
      // A for-profit partner's payments name their processor; the link names it for the page.
      violations.push({ code: Rule.ProcessorRequired, field: 'ProcessorGuid', message: "'ProcessorGuid' is required for a for-profit partner." });
    }

    let integrationSourceId: string | null = null;
    let sourceName: string | null = null;
    if (given('IntegrationSource', input.integrationSource)) {
      const [source] = await this.#db
        .select({ id: integrationSources.id, name: integrationSources.name })
        .from(integrationSources)
        .where(and(eq(integrationSources.id, input.integrationSource.trim().toLowerCase()), eq(integrationSources.partnerId, partner.id)));
      if (source) {
        integrationSourceId = source.id;
        sourceName = source.name;
      } else unknown('IntegrationSource', 'integration sources');
    }

    let savedCardTokenId: string | null = null;
    let savedBankTokenId: string | null = null;
    if (given('TokenGuid', input.tokenGuid)) {
      const token = await this.#tokens.find(partner.id, input.tokenGuid);
      if (!token) unknown('TokenGuid', 'active tokens');
      else if (token.kind === 'card') savedCardTokenId = token.id;
      else savedBankTokenId = token.id;
    }
    if (given('ExternalCardToken', input.externalCardToken)) {
      const token = await this.#tokens.find(partner.id, input.externalCardToken);
      if (!token) unknown('ExternalCardToken', 'card tokens');
      else if (token.kind !== 'card') {
        violations.push({ code: Rule.PayLinkTokenKindMismatch, field: 'ExternalCardToken', message: "'ExternalCardToken' is a bank-account token (a CheckInfoKey), not a card." });
      } else savedCardTokenId = token.id;
    }
    if (given('ExternalCheckToken', input.externalCheckToken)) {
      const token = await this.#tokens.find(partner.id, input.externalCheckToken);
      if (!token) unknown('ExternalCheckToken', 'bank-account tokens');
      else if (token.kind !== 'bank') {
        violations.push({ code: Rule.PayLinkTokenKindMismatch, field: 'ExternalCheckToken', message: "'ExternalCheckToken' is a card token (a CcInfoKey), not a bank account." });
      } else if (savedBankTokenId && savedBankTokenId !== token.id) {
        violations.push({ code: Rule.PayLinkTokenConflict, field: 'ExternalCheckToken', message: "'ExternalCheckToken' names another bank account than 'TokenGuid'; send one." });
      } else savedBankTokenId = token.id;
    }
    return { violations, processorId, integrationSourceId, sourceName, savedCardTokenId, savedBankTokenId };
  }

  /** The lines must be payable: the group fits the partner's kind and its contract has a schedule. */
  async #feeViolations(partner: AuthenticatedPartner, lines: PayLinkLine[]): Promise<RuleViolation[]> {
    try {
      const quote = await this.#fees.quote(partner, {
        lines: lines.map(feeLineOf),
        lineField: (i, field) => `PaymentLines[${i}].${field === 'transactionSourceGroupId' ? 'Type' : field}`,
      });
      // Every payment is refused above MAX_CENTS: a link over it could never be paid.
      if (quote.totalPaymentCents > MAX_CENTS) return [{ code: Rule.OutOfRange, field: 'PaymentLines', message: 'must add up to at most 9999999999.99 (with the fees the payer covers)' }];
      return [];
    } catch (err) {
      if (err instanceof ValidationError) return err.violations as RuleViolation[];
      if (err instanceof NotFoundError) return [{ code: Rule.NoFeeSchedule, field: 'PaymentLines', message: err.message }];
      throw err;
    }
  }
}
