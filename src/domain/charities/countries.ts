import { searchText } from './search-text.ts';

/**
 * Country names as the IRS writes them in the CITY column of its foreign rows ("CANADA",
 * "UNITED KINGDOM", "THE BAHAMAS", "ONTARIO CANADA") -> ISO 3166 alpha-2 codes. Built from the
 * runtime's own English region names (Intl.DisplayNames), plus the IRS's other spellings.
 */
const ALIASES: Record<string, string> = {
  usa: 'US', 'united states of america': 'US', 'the bahamas': 'BS', turkey: 'TR', ger: 'DE', 'west germany': 'DE',
  'hong kong': 'HK', 'dominican rep': 'DO', england: 'GB', scotland: 'GB', wales: 'GB', 'northern ireland': 'GB',
  'north ireland': 'GB', 'n ireland': 'GB', 'great britain': 'GB', london: 'GB', 'w pakistan': 'PK',
  'republic of panama': 'PA', 'republic of korea': 'KR', korea: 'KR', 'the gambia': 'GM', 'ivory coast': 'CI',
  'st vincent and grenadine': 'VC', 'virgin islands': 'VI', 'virgin islands us': 'VI', 'us virgin islands': 'VI',
  'st thomas': 'VI', 'st croix': 'VI', 'northern mariana islan': 'MP', saipan: 'MP', macedonia: 'MK',
  phillipines: 'PH', suisse: 'CH', luxenbourg: 'LU', 'czech republic': 'CZ', 'republic of china': 'TW',
  burma: 'MM', holland: 'NL',
};

/** US territories: addresses there are US addresses with the territory as their state. */
export const US_TERRITORIES = new Set(['PR', 'GU', 'VI', 'AS', 'MP', 'UM']);
/** Freely associated states that use US postal "state" codes but are countries of their own. */
export const FREELY_ASSOCIATED_STATES = new Set(['FM', 'MH', 'PW']);

let byName: Map<string, string> | undefined;

function names(): Map<string, string> {
  if (byName) return byName;
  const display = new Intl.DisplayNames(['en'], { type: 'region' });
  const map = new Map<string, string>();
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      let name: string | undefined;
      try {
        name = display.of(code);
      } catch {
        continue;
      }
      // Unknown codes come back as the code itself; user-assigned and grouping codes are skipped,
      // and a deprecated alias (UK) never replaces the code first found for a name (GB).
      if (!name || name === code || /^X[A-Z]$|^Q[M-Z]$|^(AA|ZZ|EU|EZ|UN)$/.test(code)) continue;
      const key = searchText(name);
      if (!map.has(key)) map.set(key, code);
    }
  }
  for (const [alias, code] of Object.entries(ALIASES)) map.set(alias, code);
  byName = map;
  return map;
}

/**
 * The ISO code of a country name, or null when it is not known. When the whole text is not a
 * country, its longest trailing run of words is tried ("PETEN GUATEMALA" -> GT).
 */
export function countryCode(name: string): string | null {
  const words = searchText(name).split(' ').filter(Boolean);
  const map = names();
  for (let start = 0; start < words.length; start++) {
    const code = map.get(words.slice(start).join(' '));
    if (code) return code;
  }
  return null;
}
