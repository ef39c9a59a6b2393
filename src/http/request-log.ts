import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/** The partner a request authenticated as (surface A's AccessToken), when it did. */
function partnerOf(request: FastifyRequest): string | undefined {
  return (request as { partner?: { id: string } | null }).partner?.id;
}

/**
 * Fastify's two lines of each request, with the route template (`/api/payment/:paymentGuid`:
 * what was asked for, without the ids in its URL) and, on the line that ends it, the partner id
 * of its AccessToken (an id, never the token or the partner's secret). The fields are added only
 * when the line is written: nothing is spent at a level that drops them.
 */
export class RequestLogLines extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.info({ req: request, route: request.routeOptions.url }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const fields = { res: reply, responseTime: reply.elapsedTime, route: request.routeOptions.url, partnerId: partnerOf(request) };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}
