/**
 * Bank account rules, pure: routing (transit) numbers and account numbers by country. Problems
 * come back in words, as in cards.ts: a phrase that follows the field's name.
 */

export const BANK_COUNTRIES = ['US', 'CA', 'AU'] as const;
export type BankCountry = (typeof BANK_COUNTRIES)[number];

/** CheckAccountTypeId */
export const ACCOUNT_TYPES = { 1: 'Checking', 2: 'Savings' } as const;
export type AccountTypeId = keyof typeof ACCOUNT_TYPES;
/** CheckTypeId */
export const CHECK_TYPES = { 1: 'Personal', 2: 'Corporate', 3: 'Government' } as const;
export type CheckTypeId = keyof typeof CHECK_TYPES;

export type BankField = 'country' | 'routingNumber' | 'accountNumber';
export type BankProblemKind = 'required' | 'format' | 'length' | 'checksum' | 'range' | 'unsupported';

export interface BankProblem {
  field: BankField;
  kind: BankProblemKind;
  message: string;
}

/** Account digits allowed per country. */
export const ACCOUNT_DIGITS: Record<BankCountry, [number, number]> = { US: [8, 12], CA: [7, 12], AU: [3, 9] };

/** Spaces and dashes are formatting (an Australian BSB is written 062-000). */
export function normalizeBankNumber(raw: string): string {
  return raw.replace(/[\s-]+/g, '');
}

/** The country of an ACH account: US when none is given; undefined when it is one we cannot take. */
export function bankCountry(raw: string | undefined | null): BankCountry | undefined {
  const c = (raw ?? '').trim().toUpperCase() || 'US';
  return (BANK_COUNTRIES as readonly string[]).includes(c) ? (c as BankCountry) : undefined;
}

/** ABA checksum: 3, 7, 1 weights over the nine digits; the sum is a multiple of 10. */
export function abaChecksumValid(digits: string): boolean {
  if (!/^\d{9}$/.test(digits)) return false;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (digits.charCodeAt(i) - 48) * weights[i]!;
  return sum % 10 === 0;
}

/**
 * First two digits of a US routing number: 00-12 (banks; 00 the US government), 21-32 (thrift
 * institutions), 61-72 (electronic transactions), 80 (traveller's cheques).
 */
export function abaPrefixValid(digits: string): boolean {
  const p = Number(digits.slice(0, 2));
  return (p >= 0 && p <= 12) || (p >= 21 && p <= 32) || (p >= 61 && p <= 72) || p === 80;
}

export type RoutingCheck = { ok: true; routingNumber: string } | { ok: false; problem: BankProblem };

/**
 * US: 9 digits, ABA checksum, a valid first-two-digit range (and not all zeros). CA: 9 digits,
 * `0` + 3-digit institution + 5-digit transit. AU: a 6-digit BSB.
 */
export function checkRoutingNumber(country: BankCountry, raw: string | undefined | null): RoutingCheck {
  const fail = (kind: BankProblemKind, message: string): RoutingCheck => ({ ok: false, problem: { field: 'routingNumber', kind, message } });
  const digits = normalizeBankNumber(raw ?? '');
  if (digits === '') return fail('required', 'is required');
  if (!/^\d+$/.test(digits)) return fail('format', 'must contain only digits');
  if (country === 'US') {
    if (digits.length !== 9) return fail('length', 'must have 9 digits');
    if (/^0+$/.test(digits) || !abaPrefixValid(digits)) return fail('range', 'is not a valid US routing number (its first two digits are not an ABA range)');
    if (!abaChecksumValid(digits)) return fail('checksum', 'is not a valid US routing number (checksum)');
  } else if (country === 'CA') {
    if (digits.length !== 9 || digits[0] !== '0') {
      return fail('format', 'must be 9 digits: 0, the 3-digit institution number and the 5-digit transit number');
    }
  } else if (digits.length !== 6) {
    return fail('length', 'must be a 6-digit BSB');
  }
  return { ok: true, routingNumber: digits };
}

export type AccountCheck = { ok: true; accountNumber: string; last4: string } | { ok: false; problem: BankProblem };

/** Account number digits: US 8-12, CA 7-12, AU 3-9. */
export function checkAccountNumber(country: BankCountry, raw: string | undefined | null): AccountCheck {
  const fail = (kind: BankProblemKind, message: string): AccountCheck => ({ ok: false, problem: { field: 'accountNumber', kind, message } });
  const digits = normalizeBankNumber(raw ?? '');
  if (digits === '') return fail('required', 'is required');
  if (!/^\d+$/.test(digits)) return fail('format', 'must contain only digits');
  const [min, max] = ACCOUNT_DIGITS[country];
  if (digits.length < min || digits.length > max) return fail('length', `must have ${min} to ${max} digits for a ${country} account`);
  return { ok: true, accountNumber: digits, last4: digits.slice(-4) };
}

declare const CHECKED_ACCOUNT: unique symbol;

/**
 * A bank account whose country, routing (transit, BSB) number and account number were checked by
 * `checkBankAccount`; every path that takes account data takes this type and does not check it
 * again.
 */
export interface CheckedBankAccount {
  readonly country: BankCountry;
  readonly routingNumber: string;
  readonly accountNumber: string;
  readonly last4: string;
  readonly [CHECKED_ACCOUNT]: true;
}

/** Checks an account's routing number and account number for its country: the checked account, or every problem at once. */
export function checkBankAccount(raw: {
  country: BankCountry;
  routingNumber: string | undefined | null;
  accountNumber: string | undefined | null;
}): { ok: true; account: CheckedBankAccount } | { ok: false; problems: BankProblem[] } {
  const routing = checkRoutingNumber(raw.country, raw.routingNumber);
  const account = checkAccountNumber(raw.country, raw.accountNumber);
  if (!routing.ok || !account.ok) return { ok: false, problems: [...(routing.ok ? [] : [routing.problem]), ...(account.ok ? [] : [account.problem])] };
  const checked = { country: raw.country, routingNumber: routing.routingNumber, accountNumber: account.accountNumber, last4: account.last4 };
  return { ok: true, account: checked as CheckedBankAccount };
}
