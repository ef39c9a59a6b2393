import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * The OpenAPI 3.1 document, generated from the route schemas, at /openapi.json, and the docs
 * page at /docs. Swagger UI is served from the package's own files: no CDN.
 */
export async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'The Payment API',
        version: 'v1',
        description:
          'Surface A of the payment service. Every operation except ClientSession and CharitySearch ' +
          'needs the AccessToken header from POST /api/ClientSession. A 400 is an array of BrokenRule; ' +
          'every other error is RFC 9457 problem details.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: { AccessToken: { type: 'apiKey', in: 'header', name: 'AccessToken' } },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
    transformObject: (document) => ('openapiObject' in document ? problemMediaTypes(document.openapiObject as OpenApiDocument) : document.swaggerObject) as object,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> }>>;
}

const PROBLEM_REF = '#/components/schemas/ProblemDetails';

/**
 * Problem details are sent as `application/problem+json` (RFC 9457), but the generator files
 * every response schema under the route's JSON type: clients generated from the document would
 * then expect `application/json` on errors. Responses whose schema is ProblemDetails are filed
 * under the type they are sent with.
 */
function problemMediaTypes<T extends OpenApiDocument>(doc: T): T {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        const content = response.content;
        if (!content || !Object.values(content).some((c) => c.schema?.$ref === PROBLEM_REF)) continue;
        response.content = { 'application/problem+json': Object.values(content)[0]! };
      }
    }
  }
  return doc;
}
