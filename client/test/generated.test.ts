import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, currentDocument, generateTypes } from '../scripts/openapi-types.ts';

describe('the generated client types', () => {
  it('are what /openapi.json generates now (else: npm run client:generate, and commit the file)', async () => {
    const committed = readFileSync(GENERATED_FILE, 'utf8');
    const generated = await generateTypes(await currentDocument());
    expect(committed === generated, 'client/src/generated/openapi.ts is out of date: run npm run client:generate').toBe(true);
  });
});
