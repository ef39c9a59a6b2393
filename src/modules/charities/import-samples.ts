import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The real IRS and CRA sample files shipped with the project (provenance: SOURCES.md there). */
export const SAMPLE_DIR = join(import.meta.dirname, '..', '..', '..', 'seed-data', 'charities');

export function sampleFiles(): string[] {
  return readdirSync(SAMPLE_DIR)
    .filter((f) => /\.(csv|txt)$/.test(f))
    .sort()
    .map((f) => join(SAMPLE_DIR, f));
}
