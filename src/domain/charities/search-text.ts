/**
 * The one normalization of charity names and cities, used both when a row is stored and when a
 * query arrives, so that matching is case-, accent- and punctuation-insensitive by construction:
 * "Société d'Entraide & Co." -> "societe dentraide and co".
 */

/** Letters that Unicode decomposition does not split into a base letter and an accent. */
const FOLDED: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };
const FOLDABLE = new RegExp(`[${Object.keys(FOLDED).join('')}]`, 'g');
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

export function searchText(text: string): string {
  // Registry files are mostly plain ASCII: the same rules without Unicode work (10x faster).
  if (PLAIN_ASCII.test(text)) {
    return text.toLowerCase().replace(/&/g, ' and ').replace(/['`]/g, '').replace(/[^a-z0-9]+/g, ' ').trim();
  }
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(FOLDABLE, (c) => FOLDED[c]!)
    .replace(/&/g, ' and ')
    // "St. John's" and "ST JOHNS" are the same name.
    .replace(/['’`ʼ]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The words of a normalized text (empty when it has no letter or digit). */
export function searchWords(text: string): string[] {
  const normalized = searchText(text);
  return normalized === '' ? [] : normalized.split(' ');
}
