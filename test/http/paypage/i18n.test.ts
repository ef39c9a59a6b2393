import { describe, expect, it } from 'vitest';
import { entry, fill, formatDate, formatMoney, messagesFor, resolveLanguage } from '../../../src/http/paypage/i18n.ts';

/** Every key path of a catalogue, with the type of its value. */
function shape(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null) return [`${path}:${typeof value}`];
  return Object.entries(value).flatMap(([k, v]) => shape(v, path ? `${path}.${k}` : k));
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(strings);
}

describe('the page catalogues', () => {
  it('have exactly the same keys in en, fr and es, every one translated', () => {
    const en = messagesFor('en');
    for (const lang of ['fr', 'es'] as const) {
      const other = messagesFor(lang);
      expect(shape(other).sort()).toEqual(shape(en).sort());
      for (const s of strings(other)) expect(s.trim()).not.toBe('');
      // A string left in English (other than names and codes) would show up here.
      const same = shape(en)
        .map((k) => k.split(':')[0]!)
        .filter((k) => {
          const get = (o: unknown) => k.split('.').reduce<unknown>((x, p) => (x as Record<string, unknown>)[p], o);
          return get(en) === get(other);
        });
      expect(same.filter((k) => !['total', 'receiptDate', 'fields.FirstName', 'lineTypes.10', 'lineTypes.12', 'personal', 'receiptTransaction', 'subtotal', 'titleError', 'labelled'].includes(k))).toEqual([]);
    }
  });

  it('keep the same placeholders in every language', () => {
    const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    const en = messagesFor('en');
    for (const lang of ['fr', 'es'] as const) {
      const other = messagesFor(lang);
      for (const key of shape(en).map((k) => k.split(':')[0]!)) {
        const get = (o: unknown) => key.split('.').reduce<unknown>((x, p) => (x as Record<string, unknown>)[p], o);
        expect(placeholders(String(get(other))), `${lang} ${key}`).toEqual(placeholders(String(get(en))));
      }
    }
  });
});

describe('resolveLanguage', () => {
  it.each([
    ['en', 'en'],
    ['fr', 'fr'],
    ['fr-CA', 'fr'],
    ['FR_ca', 'fr'],
    ['es', 'es'],
    ['es-419', 'es'],
    ['pt-BR', 'en'],
    ['', 'en'],
    [null, 'en'],
    ['<script>', 'en'],
    ['constructor', 'en'],
    ['toString', 'en'],
    ['__proto__', 'en'],
    ['hasOwnProperty-CA', 'en'],
  ])('%j -> %s', (tag, lang) => {
    expect(resolveLanguage(tag)).toBe(lang);
  });
});

describe('lookups by data', () => {
  it("see only the catalogue's own keys, never the Object prototype's", () => {
    const t = messagesFor('en');
    expect(entry(t.fields, 'constructor')).toBeUndefined();
    expect(entry(t.declined, 'toString')).toBeUndefined();
    expect(entry(t.declined, '50')).toBe('Your payment was declined: insufficient funds.');
    expect(fill('{constructor} {name}', { name: 'Ada' })).toBe('{constructor} Ada');
  });
});

describe('formatDate (the receipt)', () => {
  it('gives the time and says it is UTC: a New York donor at 7:30 pm on 31 December saw only "January 1, 2027" (a time audit)', () => {
    const moment = new Date('2027-01-01T00:30:00Z');
    expect(formatDate(moment, 'en')).toMatch(/^January 1, 2027 at 12:30\sAM UTC$/);
    expect(formatDate(moment, 'fr')).toMatch(/^1 janvier 2027 à 00\sh\s30 UTC$/);
    expect(formatDate(moment, 'es')).toMatch(/^1 de enero de 2027.*12:30.*UTC$/);
  });
});

describe('formatMoney', () => {
  it('formats cents exactly, in the page language', () => {
    expect(formatMoney(123456, 'USD', 'en')).toBe('$1,234.56');
    expect(formatMoney(10, 'USD', 'en')).toBe('$0.10');
    expect(formatMoney(99999999999999, 'USD', 'en')).toBe('$999,999,999,999.99');
    expect(formatMoney(123456, 'CAD', 'fr')).toBe('1\u00a0234,56\u00a0$');
    expect(formatMoney(123456, 'USD', 'es')).toBe('$1,234.56');
  });
});
