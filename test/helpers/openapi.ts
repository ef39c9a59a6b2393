import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

type OpenApi = {
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, object>; content?: Record<string, { schema: object }> }> }>>;
  components: object;
};

/** Response headers a client acts on: each one sent is documented on its response. */
const ACTED_ON_HEADERS = ['retry-after', 'idempotent-replayed', 'content-disposition', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

const documents = new WeakMap<FastifyInstance, Promise<OpenApi>>();

async function documentOf(app: FastifyInstance): Promise<OpenApi> {
  let doc = documents.get(app);
  if (!doc) {
    doc = app.inject({ method: 'GET', url: '/openapi.json' }).then((r) => r.json() as OpenApi);
    documents.set(app, doc);
  }
  return doc;
}

/**
 * Asserts that a response matches what /openapi.json publishes for the operation and status:
 * the status is documented, so are the headers a client acts on that it carries, and the body
 * validates against its schema.
 */
export async function expectDocumented(app: FastifyInstance, method: string, path: string, res: LightMyRequestResponse) {
  const doc = await documentOf(app);
  const operation = doc.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is in /openapi.json`).toBeDefined();
  const response = operation!.responses[String(res.statusCode)];
  expect(response, `${method} ${path} documents status ${res.statusCode}`).toBeDefined();
  const documentedHeaders = Object.keys(response!.headers ?? {}).map((h) => h.toLowerCase());
  for (const header of ACTED_ON_HEADERS.filter((h) => res.headers[h] !== undefined)) {
    expect(documentedHeaders, `${method} ${path} ${res.statusCode} documents ${header}`).toContain(header);
  }
  if (!response!.content) return;
  // The media type sent is the one documented (clients pick their parser by it).
  const mediaType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
  expect(Object.keys(response!.content), `${method} ${path} ${res.statusCode} documents its content type`).toContain(mediaType);
  const content = response!.content[mediaType]!;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const validate = ajv.compile({ ...content.schema, components: doc.components });
  const body = res.json();
  const ok = validate(body);
  expect(ok ? [] : validate.errors, `${method} ${path} ${res.statusCode} body matches its schema`).toEqual([]);
}
