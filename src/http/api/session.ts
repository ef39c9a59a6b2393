import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { Services } from '../../composition.ts';
import { BrokenRules, Guid, JSON_CONSUMES, Text, isoUtc } from './wire.ts';

const ClientSessionRequest = Type.Object(
  {
    ClientId: Guid({ description: 'Unique identifier of the API partner' }),
    ClientSecret: Text(500, { minLength: 1, description: 'Paired with ClientId' }),
  },
  { title: 'ClientSessionRequest' },
);

const AuthenticationClientSessionResponse = Type.Object(
  {
    Token: Type.Union([Type.String(), Type.Null()], { description: 'The access token used for every other call' }),
    ClientId: Type.String({ format: 'uuid' }),
    ExpirationDate: Type.String({ format: 'date-time', description: 'Always 5 hours after the response is sent' }),
  },
  { title: 'AuthenticationClientSessionResponse' },
);

export function sessionRoutes(app: FastifyInstance, services: Services, config: Config) {
  app.post<{ Body: { ClientId: string; ClientSecret: string } }>(
    '/ClientSession',
    {
      config: {
        public: true,
        rateLimit: { max: config.sessionRateLimitPerMinute, timeWindow: 60_000 },
      },
      schema: {
        tags: ['Session'],
        operationId: 'createClientSession',
        summary: 'Exchange a ClientId and ClientSecret for an access token (valid 5 hours).',
        consumes: JSON_CONSUMES,
        body: ClientSessionRequest,
        response: {
          200: AuthenticationClientSessionResponse,
          400: { ...BrokenRules, description: 'Invalid body, or the credentials do not authenticate.' },
        },
      },
    },
    async (request, reply) => {
      const session = await services.sessions.createSession(request.body.ClientId.toLowerCase(), request.body.ClientSecret);
      return reply.code(200).send({
        Token: session.token,
        ClientId: session.clientId,
        ExpirationDate: isoUtc(session.expiresAt),
      });
    },
  );
}
