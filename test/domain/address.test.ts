import { describe, expect, it } from 'vitest';
import { countryProblem, currencyProblem, emailProblem, ipProblem, phoneProblem, stateProblem, zipProblem } from '../../src/domain/address.ts';

describe('zip', () => {
  it.each([
    ['12345', 'US'], ['12345-6789', 'US'], ['K1A 0B1', 'CA'], ['k1a 0b1', 'ca'], ['2000', 'AU'],
    ['12345', undefined], ['K1A 0B1', undefined], ['2000', undefined], ['75008', 'FR'], ['SW1A 1AA', 'GB'], ['SW1A 1AA', 'gb'],
  ])('accepts %s for %s', (zip, country) => expect(zipProblem(zip, country)).toBeUndefined());
  it.each([
    ['1234', 'US'], ['123456', 'US'], ['12345-678', 'US'], ['K1A0B1', 'CA'], ['12345', 'CA'], ['20000', 'AU'], ['ABCDE', undefined], ['', undefined],
  ])('refuses %s for %s', (zip, country) => expect(zipProblem(zip, country)).toBeDefined());
});

describe('state', () => {
  it('needs 2 letters in the US or with no country, up to 3 elsewhere', () => {
    expect(stateProblem('NY', 'US')).toBeUndefined();
    expect(stateProblem('NY', undefined)).toBeUndefined();
    expect(stateProblem('NSW', 'US')).toBeDefined();
    expect(stateProblem('NSW', 'AU')).toBeUndefined();
    expect(stateProblem('QC', 'CA')).toBeUndefined();
    expect(stateProblem('N1', 'CA')).toBeDefined();
    expect(stateProblem('ABCD', 'AU')).toBeDefined();
  });
});

describe('email, IP, country, currency, phone', () => {
  it('checks email addresses', () => {
    for (const ok of ['a@b.co', 'first.last+tag@example.org', "o'brien@sub.example.ca"]) expect(emailProblem(ok), ok).toBeUndefined();
    for (const bad of ['a@b', 'a b@c.com', '@c.com', 'a@@c.com', 'a@c..com', 'plain', `${'x'.repeat(65)}@c.com`]) expect(emailProblem(bad), bad).toBeDefined();
    // RFC 5321: a local part of at most 64 characters.
    expect(emailProblem(`${'x'.repeat(64)}@c.com`)).toBeUndefined();
  });
  it('checks IPv4 and IPv6', () => {
    for (const ok of ['127.0.0.1', '203.0.113.9', '::1', '2001:db8::1']) expect(ipProblem(ok), ok).toBeUndefined();
    for (const bad of ['256.1.1.1', 'localhost', '1.2.3', '2001:db8:::1']) expect(ipProblem(bad), bad).toBeDefined();
  });
  it('checks countries and currencies', () => {
    expect(countryProblem('US')).toBeUndefined();
    expect(countryProblem('USA')).toBeDefined();
    expect(currencyProblem('CAD')).toBeUndefined();
    expect(currencyProblem('C$')).toBeDefined();
    for (const ok of ['USD', 'EUR', 'GBP', 'AUD', 'eur']) expect(currencyProblem(ok), ok).toBeUndefined();
    // Funds codes and currencies without two decimals cannot be charged in cents.
    for (const bad of ['USN', 'JPY', 'BHD', 'XAU', 'ABC'])
      expect(currencyProblem(bad), bad).toBe('must be an ISO 4217 currency with two decimal places (for example USD, CAD or AUD)');
  });
  it('checks North American and Australian phone forms', () => {
    for (const ok of ['555-123-4567', '(555) 123-4567', '555.123.4567', '5551234567', '+1 555 123 4567', '+15551234567', '1 212 555 0100', '1-212-555-0100', '02 9876 5432', '(02) 9876 5432', '+61 2 9876 5432', '0412 345 678', '+61 412 345 678'])
      expect(phoneProblem(ok), ok).toBeUndefined();
    for (const bad of ['123', 'call me', '555-1234', '+44 20 7946 0958']) expect(phoneProblem(bad), bad).toBeDefined();
  });
});
