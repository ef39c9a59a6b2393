import { isIP } from 'node:net';
import { CENT_CURRENCIES } from './currencies.ts';

/**
 * Billing address and contact rules shared by card payments, ACH payments and pay links.
 * Each check returns a problem in words, or undefined when the value is fine.
 */

const ZIP_FORMATS: Record<string, { pattern: RegExp; example: string }> = {
  US: { pattern: /^\d{5}(-\d{4})?$/, example: '12345 or 12345-6789' },
  CA: { pattern: /^[A-Za-z]\d[A-Za-z] \d[A-Za-z]\d$/, example: 'A1A 1A1' },
  AU: { pattern: /^\d{4}$/, example: '1234' },
};

/** US, CA and AU postal codes by country; with no country, any of the three forms. */
export function zipProblem(zip: string, country: string | undefined): string | undefined {
  const c = country?.trim().toUpperCase();
  if (c && ZIP_FORMATS[c]) {
    const f = ZIP_FORMATS[c];
    return f.pattern.test(zip) ? undefined : `must be a ${c} postal code (${f.example})`;
  }
  if (!c && !Object.values(ZIP_FORMATS).some((f) => f.pattern.test(zip))) {
    return 'must be a US (12345 or 12345-6789), Canadian (A1A 1A1) or Australian (1234) postal code';
  }
  return undefined;
}

/** 2 letters in the US (and when no country is given, the US being the default), up to 3 elsewhere. */
export function stateProblem(state: string, country: string | undefined): string | undefined {
  const c = country?.trim().toUpperCase() || 'US';
  if (c === 'US') return /^[A-Za-z]{2}$/.test(state) ? undefined : 'must be a 2-letter US state code';
  return /^[A-Za-z]{2,3}$/.test(state) ? undefined : 'must be a state or province code of 2 or 3 letters';
}

export function countryProblem(country: string): string | undefined {
  return /^[A-Za-z]{2}$/.test(country) ? undefined : 'must be a 2-letter country code';
}

export function currencyProblem(currency: string): string | undefined {
  if (!/^[A-Za-z]{3}$/.test(currency.trim())) return 'must be a 3-letter currency code (for example USD or CAD)';
  return CENT_CURRENCIES.has(currency.trim().toUpperCase()) ? undefined : 'must be an ISO 4217 currency with two decimal places (for example USD, CAD or AUD)';
}

export function ipProblem(ip: string): string | undefined {
  return isIP(ip.trim()) ? undefined : 'must be an IPv4 or IPv6 address';
}

/**
 * A pragmatic address check (RFC 5321 sizes, one @, a dotted domain, no spaces), the same rule
 * as the HTML5 email input.
 */
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

export function emailProblem(email: string): string | undefined {
  const [local = ''] = email.split('@');
  return EMAIL.test(email) && local.length <= 64 ? undefined : 'must be a valid email address';
}

/** North American and Australian phone forms: dashed, parenthesized, dotted, plain digits, +international. */
const PHONE_FORMATS = [
  /^(\+?1[ .-]?)?\(?\d{3}\)?[ .-]?\d{3}[ .-]?\d{4}$/,
  /^(\+61[ .-]?\(?0?\)?|0)?[2-478][ .-]?\d{4}[ .-]?\d{4}$/,
  /^(\+61[ .-]?|0)4\d{2}[ .-]?\d{3}[ .-]?\d{3}$/,
  /^(\+61[ .-]?\(?0?\)?|\(0?)?[2-478]\)?[ .-]?\d{4}[ .-]?\d{4}$/,
];

export function phoneProblem(phone: string): string | undefined {
  const p = phone.trim();
  return PHONE_FORMATS.some((f) => f.test(p)) ? undefined : 'must be a North American or Australian phone number';
}
