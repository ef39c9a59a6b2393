import { type Messages, en } from './messages/en.ts';
import { es } from './messages/es.ts';
import { fr } from './messages/fr.ts';

export type { Messages };
export type PageLanguage = 'en' | 'fr' | 'es';

const CATALOGUES: Record<PageLanguage, Messages> = { en, fr, es };

/**
 * The page's language from the link's Language: a BCP 47 tag whose primary subtag we have
 * (`fr`, `fr-CA`, `es_MX`, `ES`), else English.
 */
export function resolveLanguage(tag: string | null | undefined): PageLanguage {
  const primary = (tag ?? '').trim().split(/[-_]/)[0]!.toLowerCase();
  // Own keys only: `constructor`, `toString` ... are the Object prototype's, not languages.
  return Object.hasOwn(CATALOGUES, primary) ? (primary as PageLanguage) : 'en';
}

export function messagesFor(language: PageLanguage): Messages {
  return CATALOGUES[language];
}

/** Fills `{name}` placeholders. The result is plain text: escape it where it goes into HTML. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}

/** A catalogue entry by a key that comes from data (a field name, a response code): own keys only. */
export function entry(table: Readonly<Record<string | number, string>>, key: string | number): string | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** "$1,234.50", "1 234,50 $ CA" ...: a display amount from cents, through decimal text (no float arithmetic). */
export function formatMoney(cents: number, currency: string, language: PageLanguage): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const decimal = `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
  return moneyFormat(language, currency).format(decimal as unknown as number);
}

const formats = new Map<string, Intl.NumberFormat>();
function moneyFormat(language: PageLanguage, currency: string): Intl.NumberFormat {
  const key = `${language}:${currency}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(language === 'en' ? 'en-US' : language === 'fr' ? 'fr-CA' : 'es-US', { style: 'currency', currency });
    formats.set(key, format);
  }
  return format;
}

/**
 * A receipt's moment, with its time and zone: the date alone, in UTC, would tell a donor paying on
 * the evening of 31 December in New York that the gift was made on 1 January, in the next tax
 * year. The page does not know the payer's zone, so it says which one it uses.
 */
export function formatDate(date: Date, language: PageLanguage): string {
  return new Intl.DateTimeFormat(language === 'en' ? 'en-US' : language === 'fr' ? 'fr-CA' : 'es-US', {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(date);
}
