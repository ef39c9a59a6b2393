import { craFormat } from './cra-listing.ts';
import { irsFormat } from './irs-eo-bmf.ts';
import type { RowFormat } from './row-format.ts';

/** The format of a registry file, from its header line (without its line ending); null: unknown. */
export function detectFormat(headerLine: string): RowFormat | null {
  const header = headerLine.replace(/^\uFEFF/, '');
  return irsFormat(header) ?? craFormat(header);
}
