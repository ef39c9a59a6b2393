import type { FastifyInstance } from 'fastify';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import type { SessionService } from '../../modules/partners/session-service.ts';
import { sendProblem } from './problems.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The partner of the request's AccessToken (routes that are not public only). */
    partner: AuthenticatedPartner;
  }
  interface FastifyContextConfig {
    /** true: no AccessToken required (ClientSession, CharitySearch). */
    public?: boolean;
  }
}

/**
 * Every surface A route requires the AccessToken header unless it is marked public. Runs before
 * the body is read, so an unauthenticated caller learns nothing about validation.
 */
export function requireAccessToken(app: FastifyInstance, sessions: SessionService) {
  app.decorateRequest('partner', null as unknown as AuthenticatedPartner);
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404 || request.routeOptions.config.public) return;
    const header = request.headers.accesstoken;
    const token = Array.isArray(header) ? header[0] : header;
    const partner = token ? await sessions.authenticate(token.trim()) : undefined;
    if (!partner) return sendProblem(reply, 401, 'The AccessToken header is missing, unknown or expired.');
    request.partner = partner;
  });
}
