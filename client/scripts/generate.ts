/**
 * npm run client:generate (in the repository's root), or npm run generate here: writes
 * src/generated/openapi.ts from the service's /openapi.json. The service is built in this process
 * on an empty in-memory database; nothing listens. client/test/generated.test.ts fails when the
 * committed file is not what this writes.
 */
import { writeFileSync } from 'node:fs';
import { GENERATED_FILE, currentDocument, generateTypes } from './openapi-types.ts';

const document = await currentDocument();
writeFileSync(GENERATED_FILE, await generateTypes(document));
process.stdout.write(`wrote ${GENERATED_FILE}\n`);
