import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

type OpenApi = {
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, object>; content?: Record<string, { schema: object }> }> }>>;
  components: object;
};

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
 * the status is documented, and the body validates against its schema.
 */
export async function expectDocumented(app: FastifyInstance, method: string, path: string, res: LightMyRequestResponse) {
  const doc = await documentOf(app);
  const operation = doc.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is in /openapi.json`).toBeDefined();
  const response = operation!.responses[String(res.statusCode)];
  expect(response, `${method} ${path} documents status ${res.statusCode}`).toBeDefined();
  if (res.headers['idempotent-replayed'] !== undefined) {
    expect(Object.keys(response!.headers ?? {}), `${method} ${path} ${res.statusCode} documents Idempotent-Replayed`).toContain('Idempotent-Replayed');
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
