import cardValidator from 'card-validator';

/**
 * Card rules, pure: number normalization, Luhn, brand, expiry and CVV. Functions return
 * problems in words (a phrase that follows the field's name: "'CardNum' is not a valid card
 * number."), so surface A can turn them into BrokenRules and the gateway into Invalid_Argument.
 */

/** PaymentMethodTypeId of each card brand, with the spec's CardType names. */
export const CARD_BRANDS = {
  1: { code: 'AMEX', cardType: 'American Express', cvvLength: 4 },
  2: { code: 'MASTERCARD', cardType: 'Mastercard', cvvLength: 3 },
  3: { code: 'VISA', cardType: 'Visa', cvvLength: 3 },
  4: { code: 'DISCOVER', cardType: 'Discover', cvvLength: 3 },
  5: { code: 'DINERSCLUB', cardType: 'Diners Club', cvvLength: 3 },
  6: { code: 'JCB', cardType: 'JCB', cvvLength: 3 },
} as const;

export type CardPaymentMethodTypeId = keyof typeof CARD_BRANDS;

export interface CardBrand {
  paymentMethodTypeId: CardPaymentMethodTypeId;
  /** AMEX, MASTERCARD, VISA, DISCOVER, DINERSCLUB, JCB */
  code: (typeof CARD_BRANDS)[CardPaymentMethodTypeId]['code'];
  /** The spec's CardType: American Express, Mastercard, Visa, Discover, Diners Club (and JCB). */
  cardType: string;
  cvvLength: 3 | 4;
}

/** card-validator's type names of the brands we accept. */
const BY_LIBRARY_TYPE: Record<string, CardPaymentMethodTypeId> = {
  'american-express': 1,
  mastercard: 2,
  visa: 3,
  discover: 4,
  'diners-club': 5,
  jcb: 6,
};

export const ACCEPTED_BRANDS_TEXT = 'American Express, Mastercard, Visa, Discover, Diners Club or JCB';

export function cardBrand(paymentMethodTypeId: CardPaymentMethodTypeId): CardBrand {
  const b = CARD_BRANDS[paymentMethodTypeId];
  return { paymentMethodTypeId, code: b.code, cardType: b.cardType, cvvLength: b.cvvLength };
}

export type CardField = 'number' | 'expMonth' | 'expYear' | 'expiry' | 'cvv';
export type CardProblemKind = 'required' | 'format' | 'length' | 'checksum' | 'brand' | 'expired';

export interface CardProblem {
  /** Which input it concerns; `expiry` is the month and year together (an expired card). */
  field: CardField;
  kind: CardProblemKind;
  /** Follows the field's name: `'CardNum' ${message}.` */
  message: string;
}

/** Spaces and dashes are how people write card numbers; they are not part of it. */
export function normalizeCardNumber(raw: string): string {
  return raw.replace(/[\s-]+/g, '');
}

/** The Luhn (mod 10) check over a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const BRANDS_BY_ID = new Map(([1, 2, 3, 4, 5, 6] as const).map((id) => [id, cardBrand(id)]));

function brandOf(card: { type: string } | null): CardBrand | undefined {
  const id = card ? BY_LIBRARY_TYPE[card.type] : undefined;
  return id === undefined ? undefined : BRANDS_BY_ID.get(id);
}

/** The brand of a card number (digits only) by its prefix, when it is one we accept. */
export function detectBrand(digits: string): CardBrand | undefined {
  return brandOf(cardValidator.number(digits, { maxLength: 19 }).card);
}

export type CardNumberCheck =
  | { ok: true; number: string; brand: CardBrand; last4: string }
  | { ok: false; problem: CardProblem };

/** Normalizes and checks a card number: digits, length, Luhn, an accepted brand. */
export function checkCardNumber(raw: string | undefined | null): CardNumberCheck {
  const fail = (kind: CardProblemKind, message: string): CardNumberCheck => ({ ok: false, problem: { field: 'number', kind, message } });
  const number = normalizeCardNumber(raw ?? '');
  if (number === '') return fail('required', 'is required');
  if (!/^\d+$/.test(number)) return fail('format', 'must contain only digits (spaces and dashes are ignored)');
  if (number.length < 12 || number.length > 19) return fail('length', 'must have 12 to 19 digits');
  if (!luhnValid(number)) return fail('checksum', 'is not a valid card number');
  const verdict = cardValidator.number(number, { maxLength: 19 });
  const brand = brandOf(verdict.card);
  if (!brand) return fail('brand', `is not a card we accept (${ACCEPTED_BRANDS_TEXT})`);
  // The library's verdict adds the brand's lengths to the Luhn check done above.
  if (!verdict.isValid) return fail('length', `has the wrong number of digits for a ${brand.cardType} card`);
  return { ok: true, number, brand, last4: number.slice(-4) };
}

export const MONTH = /^(0[1-9]|1[0-2])$/;
export const TWO_DIGIT_YEAR = /^\d{2}$/;

/**
 * Checks a two-digit month (01-12) and two-digit year, and that the card has not expired: a card
 * is valid through the last day of its month. `now` is compared in UTC.
 */
export function checkExpiry(expMonth: string | undefined | null, expYear: string | undefined | null, now: Date): CardProblem[] {
  const problems: CardProblem[] = [];
  const month = (expMonth ?? '').trim();
  const year = (expYear ?? '').trim();
  if (month === '') problems.push({ field: 'expMonth', kind: 'required', message: 'is required' });
  else if (!MONTH.test(month)) problems.push({ field: 'expMonth', kind: 'format', message: 'must be a two-digit month from 01 to 12' });
  if (year === '') problems.push({ field: 'expYear', kind: 'required', message: 'is required' });
  else if (!TWO_DIGIT_YEAR.test(year)) problems.push({ field: 'expYear', kind: 'format', message: 'must be a two-digit year' });
  if (problems.length === 0 && isExpired(month, year, now)) {
    problems.push({ field: 'expiry', kind: 'expired', message: 'is in the past: the card has expired' });
  }
  return problems;
}

/**
 * The latest time zone's offset from UTC (UTC-12). A card is refused here only once its month has
 * ended everywhere: in UTC, a card printed 11/26 was refused from 7 pm on 30 November in New York
 * while its issuer would still approve it (a time audit). A card used in its last hours somewhere
 * further east goes to the issuer, who decides.
 */
const LATEST_ZONE_OFFSET_MS = -12 * 3600_000;

/** The card expired at the end of its month (month "01"-"12", year "00"-"99" meaning 2000-2099), in every time zone. */
export function isExpired(month: string, year: string, now: Date): boolean {
  const expires = (2000 + Number(year)) * 12 + Number(month);
  const there = new Date(now.getTime() + LATEST_ZONE_OFFSET_MS);
  const current = there.getUTCFullYear() * 12 + there.getUTCMonth() + 1;
  return current > expires;
}

/** MMYY (the gateway's CcExpDate) into month and year, or undefined when it is not four digits with a valid month. */
export function parseMmYy(text: string): { expMonth: string; expYear: string } | undefined {
  const m = /^(\d{2})(\d{2})$/.exec(text.trim());
  if (!m || !MONTH.test(m[1]!)) return undefined;
  return { expMonth: m[1]!, expYear: m[2]! };
}

/** CVV: 3 digits, 4 for American Express. Absent is fine unless `required`. */
export function checkCvv(cvv: string | undefined | null, brand: CardBrand | undefined, required = false): CardProblem | undefined {
  const value = (cvv ?? '').trim();
  if (value === '') return required ? { field: 'cvv', kind: 'required', message: 'is required' } : undefined;
  const length = brand?.cvvLength;
  if (!/^\d+$/.test(value)) return { field: 'cvv', kind: 'format', message: 'must contain only digits' };
  if (length === undefined) {
    return value.length === 3 || value.length === 4 ? undefined : { field: 'cvv', kind: 'length', message: 'must have 3 or 4 digits' };
  }
  if (value.length !== length) {
    return { field: 'cvv', kind: 'length', message: `must have ${length} digits for ${brand!.cardType === 'American Express' ? 'an' : 'a'} ${brand!.cardType} card` };
  }
  return undefined;
}

declare const CHECKED_CARD: unique symbol;

/**
 * A card whose number (digits, length, Luhn, an accepted brand) and expiry (a valid month, not
 * expired) were checked by `checkCard`. Every path that takes card data (a payment, a token, the
 * gateway) takes this type and does not check it again: only `checkCard` makes one.
 */
export interface CheckedCard {
  readonly number: string;
  readonly brand: CardBrand;
  readonly last4: string;
  readonly expMonth: string;
  readonly expYear: string;
  readonly [CHECKED_CARD]: true;
}

/** Checks a card's number and expiry at `now`: the checked card, or every problem at once. */
export function checkCard(
  raw: { number: string | undefined | null; expMonth: string | undefined | null; expYear: string | undefined | null },
  now: Date,
): { ok: true; card: CheckedCard } | { ok: false; problems: CardProblem[]; brand?: CardBrand } {
  const number = checkCardNumber(raw.number);
  const problems = [...(number.ok ? [] : [number.problem]), ...checkExpiry(raw.expMonth, raw.expYear, now)];
  // The brand of a good number with a bad expiry: the CVV's length depends on it.
  if (!number.ok || problems.length > 0) return { ok: false, problems, ...(number.ok ? { brand: number.brand } : {}) };
  const card = { number: number.number, brand: number.brand, last4: number.last4, expMonth: raw.expMonth!.trim(), expYear: raw.expYear!.trim() };
  return { ok: true, card: card as CheckedCard };
}
