import { join } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { testConfig } from '../../src/config.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createLogger } from '../../src/platform/logging.ts';
import { createServices } from '../../src/composition.ts';
import { openPglite } from '../../src/platform/database/database.ts';

/** The generated part of the client: the types of every operation of /openapi.json. */
export const GENERATED_FILE = join(import.meta.dirname, '..', 'src', 'generated', 'openapi.ts');

const HEADER = `/**
 * Generated from the service's /openapi.json by openapi-typescript (npm run client:generate).
 * Do not edit: client/test/generated.test.ts fails when this file is not what the document generates.
 */

`;

/** The service's OpenAPI document, from an app built in this process (no database is queried to build it). */
export async function currentDocument(): Promise<OpenAPI3> {
  const store = await openPglite();
  try {
    const services = createServices({ store, clock: new ManualClock(), ids: cryptoIds, config: testConfig(), log: createLogger('silent') });
    const app = await buildApp({ services });
    try {
      return (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenAPI3;
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** "METHOD /path" of each operation that documents the Idempotency-Key header. */
export function idempotentOperations(document: OpenAPI3): string[] {
  const operations: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const parameters = (item as Record<string, { parameters?: { in?: string; name?: string }[] } | undefined>)[method]?.parameters ?? [];
      if (parameters.some((p) => p.in === 'header' && p.name?.toLowerCase() === 'idempotency-key')) operations.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return operations.sort();
}

/**
 * The TypeScript types of `document`, as the committed file holds them, and the operations that
 * take an Idempotency-Key (the client sends those again after a lost answer; not the others).
 */
export async function generateTypes(document: OpenAPI3): Promise<string> {
  const list = idempotentOperations(document).map((o) => `  ${JSON.stringify(o)},`).join('\n');
  return `${HEADER}${astToString(await openapiTS(document, { alphabetize: true }))}
/** Operations that take an Idempotency-Key ("METHOD /path"): one whose answer was lost may be sent again with the same key. */
export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set([
${list}
]);
`;
}
