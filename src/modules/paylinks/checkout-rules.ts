import { phoneProblem, zipProblem } from '../../domain/address.ts';
import { type CardProblem, type CheckedCard, checkCard } from '../../domain/cards.ts';
import { HOLDER_LIMITS, type Holder } from '../../domain/holder.ts';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import type { PaymentRecord } from '../payments/payment-record.ts';
import type { StoredToken } from '../vault/token-service.ts';
import type { PayLinkStatus } from './paylink.ts';

/**
 * What the hosted page submits and what it is answered, and the rules of its form that the
 * payment service does not check itself. Violations name the fields below (camelCase); the page
 * puts them on its own form fields.
 */

/** The payer's part of the form, as typed. */
export type PayerForm = Omit<Holder, 'externalConstituentId'> & { phone?: string };

export interface CardForm {
  /** Pay with the link's saved card (TokenGuid / ExternalCardToken) instead of a new one. */
  useSaved?: boolean;
  nameOnCard?: string;
  cardNum?: string;
  expMonth?: string;
  expYear?: string;
  cvNum?: string;
}

export interface BankForm {
  /** Pay with the link's saved bank account (TokenGuid / ExternalCheckToken). */
  useSaved?: boolean;
  nameOnCheck?: string;
  checkRoutingNumber?: string;
  checkAccountNumber?: string;
  checkAccountTypeId?: string;
  checkTypeId?: string;
}

export interface CheckoutSubmission {
  method: 'card' | 'ach';
  payer: PayerForm;
  card: CardForm;
  bank: BankForm;
  /** The TranId the payer typed, when the link shows the field and has none. */
  tranId?: string;
  /** The request's client IP (used unless the link set IpAddress). */
  clientIp: string;
}

export type CheckoutOutcome =
  | { kind: 'invalid'; violations: RuleViolation[] }
  | { kind: 'declined'; record: PaymentRecord }
  | { kind: 'paid'; record: PaymentRecord; responseToken: string }
  | { kind: 'saved'; token: StoredToken; responseToken: string }
  /** The link was completed or cancelled meanwhile. */
  | { kind: 'unavailable'; status: PayLinkStatus }
  /** Another submission of the link is being processed. */
  | { kind: 'busy' }
  /**
   * The payment succeeded but its submission had lost the link (another submission completed it,
   * or it was cancelled, while the processor worked): the payment was voided (`voided`), or the
   * void failed and the payment stands, unrecorded on the link (logged for the operator).
   */
  | { kind: 'lost'; record: PaymentRecord; voided: boolean }
  /**
   * The processor call failed in a way that leaves the charge unknown: the payment is held as
   * Processing for an operator, and the link takes no other payment meanwhile.
   */
  | { kind: 'unknown'; record: PaymentRecord };

/** What the page shows about the link's saved card or bank account. */
export interface SavedInstruments {
  card: StoredToken | undefined;
  bank: StoredToken | undefined;
}

const blank = (v: string | undefined) => v === undefined || v.trim() === '';

/** The longest phone number the form takes (the payment has no phone field: it goes to fraud screening). */
const PHONE_MAX_LENGTH = 20;

/** The payer's phone: optional, a North American or Australian number. */
export function phoneViolations(payer: PayerForm): RuleViolation[] {
  if (blank(payer.phone)) return [];
  const phone = payer.phone!.trim();
  if (phone.length > PHONE_MAX_LENGTH) return [{ code: Rule.MaxLength, field: 'phone', message: `{phone} must be at most ${PHONE_MAX_LENGTH} characters.` }];
  const problem = phoneProblem(phone);
  return problem ? [{ code: Rule.InvalidFormat, field: 'phone', message: `{phone} ${problem}.` }] : [];
}

const CARD_FIELDS: Record<CardProblem['field'], keyof CardForm> = { number: 'cardNum', expMonth: 'expMonth', expYear: 'expYear', expiry: 'expYear', cvv: 'cvNum' };

function cardViolation(p: CardProblem): RuleViolation {
  const field = CARD_FIELDS[p.field];
  const code = p.kind === 'required' ? Rule.Required : p.kind === 'expired' ? Rule.CardExpired : p.kind === 'checksum' || p.kind === 'brand' ? Rule.CardNumberInvalid : Rule.InvalidFormat;
  return { code, field, message: `{${field}} ${p.message}.` };
}

/**
 * The save-card form (WorkflowType 3 and 4): the card checked once, into the card that is
 * stored, and the holder's fields the token keeps. Nothing is charged, so no CVV is asked.
 */
export function checkSaveCardForm(payer: PayerForm, card: CardForm, now: Date): { ok: true; card: CheckedCard } | { ok: false; violations: RuleViolation[] } {
  const checked = checkCard({ number: card.cardNum, expMonth: card.expMonth, expYear: card.expYear }, now);
  const violations = checked.ok ? [] : checked.problems.map(cardViolation);
  for (const field of ['firstName', 'lastName', 'street'] as const) {
    const value = payer[field];
    const max = HOLDER_LIMITS[field];
    if (value !== undefined && value.trim().length > max) violations.push({ code: Rule.MaxLength, field, message: `{${field}} must be at most ${max} characters.` });
  }
  if (!blank(payer.zip)) {
    const zip = payer.zip!.trim();
    const problem = zip.length > HOLDER_LIMITS.zip ? `must be at most ${HOLDER_LIMITS.zip} characters` : zipProblem(zip, payer.country?.trim() || undefined);
    if (problem) violations.push({ code: Rule.InvalidFormat, field: 'zip', message: `{zip} ${problem}.` });
  }
  return checked.ok && violations.length === 0 ? { ok: true, card: checked.card } : { ok: false, violations };
}
