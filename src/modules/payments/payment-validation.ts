import { ACCOUNT_TYPES, CHECK_TYPES, bankCountry, checkAccountNumber, checkRoutingNumber, type BankCountry } from '../../domain/bank.ts';
import { type CardBrand, type CardProblem, checkCardNumber, checkCvv, checkExpiry } from '../../domain/cards.ts';
import { Rule, type RuleName, type RuleViolation } from '../../domain/rules.ts';
import { countryProblem, currencyProblem, emailProblem, ipProblem, stateProblem, zipProblem } from '../../domain/address.ts';
import type { AchPaymentInput, CardPaymentInput, PaymentInputCommon } from './payment-input.ts';
import { GUID } from '../../platform/ids.ts';

/**
 * The rules of the spec's card and ACH payment request tables (and issue 4), applied the same way
 * for every surface. Each function returns every violation at once, named by wire field.
 */

/** Maximum lengths of the spec's request tables, shared with the edge schemas. */
export const MAX_LENGTH = {
  MKey: 500,
  CardNum: 30,
  CardType: 20,
  ExpMonth: 2,
  ExpYear: 2,
  CVNum: 4,
  NameOnCard: 25,
  NameOnCheck: 25,
  Zip: 10,
  Street: 50,
  Email: 100,
  City: 50,
  State: 50,
  Country: 2,
  Currency: 3,
  ExternalConstituentId: 200,
  ExternalCustomerId: 200,
  FirstName: 50,
  LastName: 50,
  BillingDescriptor: 22,
  IpAddress: 40,
  ExternalEventId: 10,
  ExternalEventName: 500,
  ShippingFee: 7,
  TaxableBenefit: 7,
  Surcharge: 7,
  TranId: 100,
  ExternalPaymentData: 5000,
  CheckRoutingNumber: 9,
  CheckAccountNumber: 20,
  CheckNumber: 10,
  EpfSessionId: 100,
} as const;

const WALLET_TYPES = ['8', '9'];

export type ValidatedMethod =
  | { kind: 'card'; number: string; brand: CardBrand; last4: string; expMonth: string; expYear: string; cvv?: string; name: string }
  | { kind: 'wallet'; paymentMethodTypeId: 8 | 9; data: string; name: string }
  | { kind: 'bank'; routingNumber: string; accountNumber: string; last4: string; accountType: 1 | 2; checkType: 1 | 2 | 3; country: BankCountry; name: string; checkNumber?: string }
  | { kind: 'token'; ref: string; cvv?: string; name?: string };

export interface Validated {
  violations: RuleViolation[];
  method?: ValidatedMethod;
}

const blank = (v: string | undefined): boolean => v === undefined || v.trim() === '';

class Violations {
  readonly list: RuleViolation[] = [];
  add(code: RuleName, field: string, message: string) {
    if (!this.list.some((v) => v.field === field)) this.list.push({ code, field, message: `'${field}' ${message}.` });
  }
  required(field: string, value: string | undefined) {
    if (blank(value)) this.add(Rule.Required, field, 'is required');
    return !blank(value);
  }
  maxLength(field: keyof typeof MAX_LENGTH, value: string | undefined) {
    if (value !== undefined && value.length > MAX_LENGTH[field]) this.add(Rule.MaxLength, field, `must be at most ${MAX_LENGTH[field]} characters`);
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
  number: 'CardNum',
  expMonth: 'ExpMonth',
  expYear: 'ExpYear',
  expiry: 'ExpYear',
  cvv: 'CVNum',
};

function validateCommon(input: PaymentInputCommon, v: Violations, options: { stateRequired: boolean }) {
  for (const field of ['FirstName', 'LastName', 'Street', 'City', 'ExternalConstituentId', 'ExternalCustomerId', 'BillingDescriptor', 'ExternalEventId', 'ExternalEventName', 'TranId', 'EpfSessionId', 'MKey'] as const) {
    const key = (field.charAt(0).toLowerCase() + field.slice(1)) as keyof PaymentInputCommon;
    v.maxLength(field, input[key] as string | undefined);
  }
  // A recurring charge is merchant-initiated: no payer is there to give an email address, an IP
  // address or a state, so they are checked only when present (docs/decisions.md, "Recurring billing").
  const payerPresent = input.recurring === undefined;
  if (payerPresent ? v.required('Email', input.email) : !blank(input.email)) {
    v.maxLength('Email', input.email);
    v.check('Email', input.email, emailProblem);
  }
  if (payerPresent ? v.required('IpAddress', input.ipAddress) : !blank(input.ipAddress)) {
    v.maxLength('IpAddress', input.ipAddress);
    v.check('IpAddress', input.ipAddress, ipProblem);
  }
  v.maxLength('Country', input.country);
  v.check('Country', input.country, countryProblem);
  const country = blank(input.country) ? undefined : input.country!.trim();
  v.maxLength('Zip', input.zip);
  v.check('Zip', input.zip, (z) => zipProblem(z, country));
  if (options.stateRequired && payerPresent) v.required('State', input.state);
  v.maxLength('State', input.state);
  v.check('State', input.state, (s) => stateProblem(s, country));
  v.maxLength('Currency', input.currency);
  v.check('Currency', input.currency, currencyProblem);
  for (const [field, value] of [
    ['ProcessorGuid', input.processorGuid],
    ['CharityId', input.charityId],
    ['OrganizationGuid', input.organizationGuid],
    ['IntegrationSource', input.integrationSource],
    ['ExternalEventGuid', input.externalEventGuid],
  ] as const) {
    v.check(field, value, (g) => (GUID.test(g) ? undefined : 'must be a GUID'));
  }
}

export function validateCardPayment(input: CardPaymentInput, now: Date): Validated {
  const v = new Violations();
  validateCommon(input, v, { stateRequired: false });
  v.maxLength('NameOnCard', input.nameOnCard);
  v.maxLength('ExternalPaymentData', input.externalPaymentData);
  v.maxLength('CardType', input.cardType);

  const type = input.paymentMethodTypeId?.trim();
  const wallet = type !== undefined && type !== '' && WALLET_TYPES.includes(type);
  if (type !== undefined && type !== '' && !wallet) {
    v.add(Rule.InvalidValue, 'PaymentMethodTypeId', 'must be 8 (wallet A) or 9 (wallet B) when sent; card brands are detected from CardNum');
  }

  if (input.tokenRef !== undefined) {
    const cvv = input.cvNum?.trim() || undefined;
    if (cvv) v.check('CVNum', cvv, (c) => checkCvv(c, undefined)?.message);
    return { violations: v.list, method: { kind: 'token', ref: input.tokenRef, cvv, name: input.nameOnCard?.trim() || undefined } };
  }

  const name = input.nameOnCard?.trim() ?? '';
  v.required('NameOnCard', input.nameOnCard);

  if (wallet) {
    if (!v.required('ExternalPaymentData', input.externalPaymentData)) return { violations: v.list };
    if (input.tokenize) v.add(Rule.InvalidValue, 'Tokenize', 'cannot be true for a wallet transaction: there is no card to store');
    return {
      violations: v.list,
      method: v.list.length ? undefined : { kind: 'wallet', paymentMethodTypeId: Number(type) as 8 | 9, data: input.externalPaymentData!, name },
    };
  }

  v.maxLength('CardNum', input.cardNum);
  v.maxLength('ExpMonth', input.expMonth);
  v.maxLength('ExpYear', input.expYear);
  v.maxLength('CVNum', input.cvNum);
  const number = checkCardNumber(input.cardNum);
  if (!number.ok) v.card(number.problem, CARD_FIELDS);
  for (const p of checkExpiry(input.expMonth, input.expYear, now)) v.card(p, CARD_FIELDS);
  const cvvProblem = checkCvv(input.cvNum, number.ok ? number.brand : undefined);
  if (cvvProblem) v.card(cvvProblem, CARD_FIELDS);
  if (v.list.length > 0 || !number.ok) return { violations: v.list };
  return {
    violations: [],
    method: {
      kind: 'card',
      number: number.number,
      brand: number.brand,
      last4: number.last4,
      expMonth: input.expMonth!.trim(),
      expYear: input.expYear!.trim(),
      cvv: input.cvNum?.trim() || undefined,
      name,
    },
  };
}

export function validateAchPayment(input: AchPaymentInput): Validated {
  const v = new Violations();
  validateCommon(input, v, { stateRequired: true });
  const type = input.paymentMethodTypeId?.trim();
  if (type !== undefined && type !== '' && type !== '7') v.add(Rule.InvalidValue, 'PaymentMethodTypeId', 'must be 7 (ACH) when sent');

  v.maxLength('NameOnCheck', input.nameOnCheck);
  if (input.tokenRef !== undefined) {
    return { violations: v.list, method: { kind: 'token', ref: input.tokenRef, name: input.nameOnCheck?.trim() || undefined } };
  }

  v.required('NameOnCheck', input.nameOnCheck);
  v.maxLength('CheckNumber', input.checkNumber);
  v.check('CheckNumber', input.checkNumber, (c) => (/^\d{1,10}$/.test(c) ? undefined : 'must be digits'));
  const accountType = input.checkAccountTypeId?.trim();
  if (v.required('CheckAccountTypeId', accountType) && !Object.hasOwn(ACCOUNT_TYPES, accountType!)) {
    v.add(Rule.InvalidValue, 'CheckAccountTypeId', 'must be 1 (Checking) or 2 (Savings)');
  }
  const checkType = input.checkTypeId?.trim();
  if (v.required('CheckTypeId', checkType) && !Object.hasOwn(CHECK_TYPES, checkType!)) {
    v.add(Rule.InvalidValue, 'CheckTypeId', 'must be 1 (Personal), 2 (Corporate) or 3 (Government)');
  }
  const country = bankCountry(input.country);
  if (!country) {
    v.add(Rule.InvalidValue, 'Country', 'must be US, CA or AU for an ACH payment');
    return { violations: v.list };
  }
  v.maxLength('CheckRoutingNumber', input.checkRoutingNumber);
  v.maxLength('CheckAccountNumber', input.checkAccountNumber);
  const routing = checkRoutingNumber(country, input.checkRoutingNumber);
  if (!routing.ok) {
    v.add(routing.problem.kind === 'required' ? Rule.Required : Rule.RoutingNumberInvalid, 'CheckRoutingNumber', routing.problem.message);
  }
  const account = checkAccountNumber(country, input.checkAccountNumber);
  if (!account.ok) {
    v.add(account.problem.kind === 'required' ? Rule.Required : Rule.AccountNumberInvalid, 'CheckAccountNumber', account.problem.message);
  }
  if (v.list.length > 0 || !routing.ok || !account.ok) return { violations: v.list };
  return {
    violations: [],
    method: {
      kind: 'bank',
      routingNumber: routing.routingNumber,
      accountNumber: account.accountNumber,
      last4: account.last4,
      accountType: Number(accountType) as 1 | 2,
      checkType: Number(checkType) as 1 | 2 | 3,
      country,
      name: input.nameOnCheck!.trim(),
      checkNumber: input.checkNumber?.trim() || undefined,
    },
  };
}
