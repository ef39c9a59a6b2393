import { esc } from './html.ts';
import type { PageLanguage } from './i18n.ts';

/**
 * The country list of the payer form: every ISO 3166 region Node's ICU names, in the page's
 * language, sorted for that language. Built once per language; nothing is fetched.
 */

/**
 * Codes ICU names that are not countries a payer lives in (EU, UN, pseudo-locales ...), and
 * withdrawn codes it still knows (UK, YU, ZR ...), which would list a country twice.
 */
const NOT_COUNTRIES = new Set([
  'AC', 'CP', 'CQ', 'DG', 'EA', 'EU', 'EZ', 'IC', 'QO', 'TA', 'UN', 'XA', 'XB', 'ZZ',
  'AN', 'BU', 'CS', 'DD', 'DY', 'FX', 'HV', 'NH', 'RH', 'SU', 'TP', 'UK', 'VD', 'YD', 'YU', 'ZR',
]);

const lists = new Map<PageLanguage, [string, string][]>();

export function countries(language: PageLanguage): [string, string][] {
  let list = lists.get(language);
  if (!list) {
    const names = new Intl.DisplayNames([language], { type: 'region', fallback: 'none' });
    list = [];
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        const name = NOT_COUNTRIES.has(code) ? undefined : names.of(code);
        if (name) list.push([code, name]);
      }
    }
    const collator = new Intl.Collator(language);
    list.sort((x, y) => collator.compare(x[1], y[1]));
    lists.set(language, list);
  }
  return list;
}

const optionHtml = new Map<string, string>();

/** The `<option>` elements, with `selected` on the given code (the page caches them per language and code). */
export function countryOptions(language: PageLanguage, selected: string | null, placeholder: string): string {
  const key = `${language}:${selected ?? ''}`;
  let html = optionHtml.get(key);
  if (html === undefined) {
    html = `<option value="">${esc(placeholder)}</option>`;
    for (const [code, name] of countries(language)) {
      html += `<option value="${code}"${code === selected ? ' selected' : ''}>${esc(name)}</option>`;
    }
    if (optionHtml.size < 2000) optionHtml.set(key, html);
  }
  return html;
}
