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
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}
