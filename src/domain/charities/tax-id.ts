import type { Registry } from './charity.ts';

/**
 * An EIN as a partner may write it: 53-0196605, 530196605, 136747276RR0001, 136747276. `only`: the
 * registry the form belongs to, when only one writes it so (a dashed EIN is American, a BN with its
 * RR#### program suffix Canadian; nine digits may be either).
 */
export function parseTaxId(text: string): { root: string; registryNumber: string | null; only: Registry | null } | null {
  const compact = text.replace(/\s+/g, '').toUpperCase();
  if (/^\d{9}$/.test(compact)) return { root: compact, registryNumber: null, only: null };
  if (/^\d{2}-\d{7}$/.test(compact)) return { root: compact.replace('-', ''), registryNumber: null, only: 'IRS' };
  if (/^\d{9}RR\d{4}$/.test(compact)) return { root: compact.slice(0, 9), registryNumber: compact, only: 'CRA' };
  return null;
}
