import { craFormat } from './cra-listing.ts';
import { irsFormat } from './irs-eo-bmf.ts';
import type { RowFormat } from './row-format.ts';

/** The format of a registry file, from its header line (without its line ending); null: unknown. */
export function detectFormat(headerLine: string): RowFormat | null {
  // A byte order mark, decoded (U+FEFF) or read as Latin-1 bytes (the importer reads headers so).
  const header = headerLine.replace(/^(\uFEFF|\u00EF\u00BB\u00BF)/, '');
  return irsFormat(header) ?? craFormat(header);
}
