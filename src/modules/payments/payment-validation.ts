import { ACCOUNT_TYPES, CHECK_TYPES, type CheckedBankAccount, bankCountry, checkBankAccount } from '../../domain/bank.ts';
import { type CardProblem, type CheckedCard, checkCard, checkCvv } from '../../domain/cards.ts';
import { Rule, type RuleName, type RuleViolation } from '../../domain/rules.ts';
import { countryProblem, currencyProblem, emailProblem, ipProblem, stateProblem, zipProblem } from '../../domain/address.ts';
import type { AchPaymentInput, CardPaymentInput, PaymentInputCommon } from './payment-input.ts';
import { GUID } from '../../platform/ids.ts';
import { HOLDER_LIMITS } from '../../domain/holder.ts';

/**
 * The rules of the spec's card and ACH payment request tables, applied the same way for every
 * surface. Each function returns every violation at once, naming the fields of the request
 * (PaymentInputCommon's camelCase names); each surface says them in its own words.
 */

/**
 * The longest text each field of a payment request may have (the spec's request tables); the
 * payer's fields are the holder's (domain/holder.ts). Surface A's schema says the same lengths in
 * its own names.
 */
export const PAYMENT_LIMITS = {
  firstName: HOLDER_LIMITS.firstName,
  lastName: HOLDER_LIMITS.lastName,
  street: HOLDER_LIMITS.street,
  city: HOLDER_LIMITS.city,
  state: HOLDER_LIMITS.state,
  zip: HOLDER_LIMITS.zip,
  country: HOLDER_LIMITS.country,
  email: HOLDER_LIMITS.email,
  externalConstituentId: HOLDER_LIMITS.externalConstituentId,
  externalCustomerId: HOLDER_LIMITS.customerKey,
  mKey: 500,
  cardNum: 30,
  cardType: 20,
  expMonth: 2,
  expYear: 2,
  cvNum: 4,
  nameOnCard: 25,
  nameOnCheck: 25,
  currency: 3,
  billingDescriptor: 22,
  ipAddress: 40,
  externalEventId: 10,
  externalEventName: 500,
  tranId: 100,
  externalPaymentData: 5000,
  checkRoutingNumber: 9,
  checkAccountNumber: 20,
  checkNumber: 10,
  epfSessionId: 100,
} as const;

type LimitedField = keyof typeof PAYMENT_LIMITS;

const WALLET_TYPES = ['8', '9'];

export type ValidatedMethod =
  | { kind: 'card'; card: CheckedCard; cvv?: string; name: string }
  | { kind: 'wallet'; paymentMethodTypeId: 8 | 9; data: string; name: string }
  | { kind: 'bank'; account: CheckedBankAccount; accountType: 1 | 2; checkType: 1 | 2 | 3; name: string; checkNumber?: string }
  | { kind: 'token'; ref: string; cvv?: string; name?: string };

export interface Validated {
  violations: RuleViolation[];
  method?: ValidatedMethod;
}

const blank = (v: string | undefined): boolean => v === undefined || v.trim() === '';

class Violations {
  readonly list: RuleViolation[] = [];
  add(code: RuleName, field: string, message: string) {
    if (!this.list.some((v) => v.field === field)) this.list.push({ code, field, message: `{${field}} ${message}.` });
  }
  required(field: string, value: string | undefined) {
    if (blank(value)) this.add(Rule.Required, field, 'is required');
    return !blank(value);
  }
  maxLength(field: LimitedField, value: string | undefined) {
    if (value !== undefined && value.length > PAYMENT_LIMITS[field]) this.add(Rule.MaxLength, field, `must be at most ${PAYMENT_LIMITS[field]} characters`);
  }
  check(field: string, value: string | undefined, problem: (v: string) => string | undefined, code: RuleName = Rule.InvalidFormat) {
    if (blank(value)) return;
    const p = problem(value!.trim());
    if (p) this.add(code, field, p);
  }
  card(p: CardProblem, fields: Record<CardProblem['field'], string>) {
    const code =
      p.kind === 'required'
        ? Rule.Required
        : p.kind === 'expired'
          ? Rule.CardExpired
          : p.kind === 'checksum' || p.kind === 'brand'
            ? Rule.CardNumberInvalid
            : Rule.InvalidFormat;
    this.add(code, fields[p.field], p.message);
  }
}

const CARD_FIELDS: Record<CardProblem['field'], string> = {
  number: 'cardNum',
  expMonth: 'expMonth',
  expYear: 'expYear',
  expiry: 'expYear',
  cvv: 'cvNum',
};

function validateCommon(input: PaymentInputCommon, v: Violations, options: { stateRequired: boolean }) {
  for (const field of ['firstName', 'lastName', 'street', 'city', 'externalConstituentId', 'externalCustomerId', 'billingDescriptor', 'externalEventId', 'externalEventName', 'tranId', 'epfSessionId', 'mKey'] as const) {
    v.maxLength(field, input[field]);
  }
  // A recurring charge is merchant-initiated: no payer is there to give an email address, an IP
  // address or a state, so they are checked only when present (docs/decisions.md, "Recurring billing").
  const payerPresent = input.recurring === undefined;
  if (payerPresent ? v.required('email', input.email) : !blank(input.email)) {
    v.maxLength('email', input.email);
    v.check('email', input.email, emailProblem);
  }
  if (payerPresent ? v.required('ipAddress', input.ipAddress) : !blank(input.ipAddress)) {
    v.maxLength('ipAddress', input.ipAddress);
    v.check('ipAddress', input.ipAddress, ipProblem);
  }
  v.maxLength('country', input.country);
  v.check('country', input.country, countryProblem);
  const country = blank(input.country) ? undefined : input.country!.trim();
  v.maxLength('zip', input.zip);
  v.check('zip', input.zip, (z) => zipProblem(z, country));
  if (options.stateRequired && payerPresent) v.required('state', input.state);
  v.maxLength('state', input.state);
  v.check('state', input.state, (s) => stateProblem(s, country));
  v.maxLength('currency', input.currency);
  v.check('currency', input.currency, currencyProblem);
  for (const [field, value] of [
    ['processorGuid', input.processorGuid],
    ['charityId', input.charityId],
    ['organizationGuid', input.organizationGuid],
    ['integrationSource', input.integrationSource],
    ['externalEventGuid', input.externalEventGuid],
  ] as const) {
    v.check(field, value, (g) => (GUID.test(g) ? undefined : 'must be a GUID'));
  }
}

export function validateCardPayment(input: CardPaymentInput, now: Date): Validated {
  const v = new Violations();
  validateCommon(input, v, { stateRequired: false });
  v.maxLength('nameOnCard', input.nameOnCard);
  v.maxLength('externalPaymentData', input.externalPaymentData);
  v.maxLength('cardType', input.cardType);

  const type = input.paymentMethodTypeId?.trim();
  const wallet = type !== undefined && type !== '' && WALLET_TYPES.includes(type);
  if (type !== undefined && type !== '' && !wallet) {
    v.add(Rule.InvalidValue, 'paymentMethodTypeId', 'must be 8 (wallet A) or 9 (wallet B) when sent; card brands are detected from {cardNum}');
  }

  if (input.tokenRef !== undefined) {
    const cvv = input.cvNum?.trim() || undefined;
    if (cvv) v.check('cvNum', cvv, (c) => checkCvv(c, undefined)?.message);
    return { violations: v.list, method: { kind: 'token', ref: input.tokenRef, cvv, name: input.nameOnCard?.trim() || undefined } };
  }

  const name = input.nameOnCard?.trim() ?? '';
  v.required('nameOnCard', input.nameOnCard);

  if (wallet) {
    if (!v.required('externalPaymentData', input.externalPaymentData)) return { violations: v.list };
    if (input.tokenize) v.add(Rule.InvalidValue, 'tokenize', 'cannot be true for a wallet transaction: there is no card to store');
    return {
      violations: v.list,
      method: v.list.length ? undefined : { kind: 'wallet', paymentMethodTypeId: Number(type) as 8 | 9, data: input.externalPaymentData!, name },
    };
  }

  v.maxLength('cardNum', input.cardNum);
  v.maxLength('expMonth', input.expMonth);
  v.maxLength('expYear', input.expYear);
  v.maxLength('cvNum', input.cvNum);
  const checked = checkCard({ number: input.cardNum, expMonth: input.expMonth, expYear: input.expYear }, now);
  if (!checked.ok) for (const p of checked.problems) v.card(p, CARD_FIELDS);
  const cvvProblem = checkCvv(input.cvNum, checked.ok ? checked.card.brand : checked.brand);
  if (cvvProblem) v.card(cvvProblem, CARD_FIELDS);
  if (v.list.length > 0 || !checked.ok) return { violations: v.list };
  return { violations: [], method: { kind: 'card', card: checked.card, cvv: input.cvNum?.trim() || undefined, name } };
}

export function validateAchPayment(input: AchPaymentInput): Validated {
  const v = new Violations();
  validateCommon(input, v, { stateRequired: true });
  const type = input.paymentMethodTypeId?.trim();
  if (type !== undefined && type !== '' && type !== '7') v.add(Rule.InvalidValue, 'paymentMethodTypeId', 'must be 7 (ACH) when sent');

  v.maxLength('nameOnCheck', input.nameOnCheck);
  if (input.tokenRef !== undefined) {
    return { violations: v.list, method: { kind: 'token', ref: input.tokenRef, name: input.nameOnCheck?.trim() || undefined } };
  }

  v.required('nameOnCheck', input.nameOnCheck);
  v.maxLength('checkNumber', input.checkNumber);
  v.check('checkNumber', input.checkNumber, (c) => (/^\d{1,10}$/.test(c) ? undefined : 'must be digits'));
  const accountType = input.checkAccountTypeId?.trim();
  if (v.required('checkAccountTypeId', accountType) && !Object.hasOwn(ACCOUNT_TYPES, accountType!)) {
    v.add(Rule.InvalidValue, 'checkAccountTypeId', 'must be 1 (Checking) or 2 (Savings)');
  }
  const checkType = input.checkTypeId?.trim();
  if (v.required('checkTypeId', checkType) && !Object.hasOwn(CHECK_TYPES, checkType!)) {
    v.add(Rule.InvalidValue, 'checkTypeId', 'must be 1 (Personal), 2 (Corporate) or 3 (Government)');
  }
  const country = bankCountry(input.country);
  if (!country) {
    v.add(Rule.InvalidValue, 'country', 'must be US, CA or AU for an ACH payment');
    return { violations: v.list };
  }
  v.maxLength('checkRoutingNumber', input.checkRoutingNumber);
  v.maxLength('checkAccountNumber', input.checkAccountNumber);
  const checked = checkBankAccount({ country, routingNumber: input.checkRoutingNumber, accountNumber: input.checkAccountNumber });
  for (const p of checked.ok ? [] : checked.problems) {
    const field = p.field === 'routingNumber' ? 'checkRoutingNumber' : 'checkAccountNumber';
    const broken = p.field === 'routingNumber' ? Rule.RoutingNumberInvalid : Rule.AccountNumberInvalid;
    v.add(p.kind === 'required' ? Rule.Required : broken, field, p.message);
  }
  if (v.list.length > 0 || !checked.ok) return { violations: v.list };
  return {
    violations: [],
    method: {
      kind: 'bank',
      account: checked.account,
      accountType: Number(accountType) as 1 | 2,
      checkType: Number(checkType) as 1 | 2 | 3,
      name: input.nameOnCheck!.trim(),
      checkNumber: input.checkNumber?.trim() || undefined,
    },
  };
}
