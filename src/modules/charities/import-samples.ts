import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../platform/database/database.ts';
import { appSettings } from '../../platform/database/schema/index.ts';
import type { CharityImportService, ImportReport } from './import-service.ts';
import { eq } from '../../platform/database/drizzle.ts';

/** The real IRS and CRA sample files shipped with the project (provenance: SOURCES.md there). */
export const SAMPLE_DIR = join(import.meta.dirname, '..', '..', '..', 'seed-data', 'charities');

export function sampleFiles(): string[] {
  return readdirSync(SAMPLE_DIR)
    .filter((f) => /\.(csv|txt)$/.test(f))
    .sort()
    .map((f) => join(SAMPLE_DIR, f));
}

const SAMPLES_KEY = 'demo-charities';

/**
 * The demo directory: the shipped samples, imported once per database (a marker row records it),
 * so later starts cost one query. Returns the report when it imported, undefined otherwise.
 */
export async function loadSampleCharitiesOnce(store: Store, importer: CharityImportService): Promise<ImportReport | undefined> {
  const [marker] = await store.db.select().from(appSettings).where(eq(appSettings.key, SAMPLES_KEY));
  if (marker) return undefined;
  const files = sampleFiles();
  const report = await importer.importFiles(files);
  await store.db
    .insert(appSettings)
    .values({ key: SAMPLES_KEY, value: { files: files.map((f) => f.slice(SAMPLE_DIR.length + 1)), rows: report.totals.read } })
    .onConflictDoNothing();
  return report;
}
