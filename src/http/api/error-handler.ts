import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Rule } from '../../domain/rules.ts';
import { BusyError, ConflictError, DatabaseUnavailableError, InvalidStoredValueError, NotFoundError, OutcomeUnknownError, ValidationError, findError } from '../../platform/errors.ts';
import { ApiValidationError, sendBrokenRules, sendProblem } from './problems.ts';
import { wireViolation } from './wire-names.ts';
import { schemaViolations } from './schema-errors.ts';

/** Framework error codes that mean the body could not be read as JSON. */
const UNREADABLE_BODY = new Set([
  'FST_ERR_CTP_INVALID_JSON_BODY',
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
  'FST_ERR_CTP_BODY_TOO_LARGE_OR_INVALID',
]);

/**
 * The one error mapping of surface A: 400 is a BrokenRule array; every other error status is
 * problem details. Messages of unexpected errors never reach the client, and parse errors are
 * not echoed (a JSON parser's message quotes the body, which can hold a card number).
 */
export function apiErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.validation) {
    return sendBrokenRules(reply, schemaViolations(error.validation, error.validationContext));
  }
  if (error instanceof ApiValidationError) return sendBrokenRules(reply, error.violations);
  if (error instanceof ValidationError) {
    const queryNames = new Set(Object.keys((request.routeOptions.schema?.querystring as { properties?: object } | undefined)?.properties ?? {}));
    return sendBrokenRules(reply, error.violations.map((v) => wireViolation(v, queryNames)));
  }
  if (error instanceof NotFoundError) return sendProblem(reply, 404, error.message);
  if (error instanceof ConflictError) return sendProblem(reply, 409, error.message);
  if (error instanceof BusyError) {
    reply.header('Retry-After', '5');
    return sendProblem(reply, 503, error.message);
  }

  const unstorable = findError(error, InvalidStoredValueError);
  if (unstorable) {
    // Backstop: a value no rule caught that PostgreSQL cannot take (a NUL character, an
    // out-of-range number or date). The request is refused; nothing was written.
    request.log.info({ code: unstorable.driverCode }, 'input refused by the database');
    return sendBrokenRules(reply, [{ code: Rule.InvalidFormat, message: 'A value in the request cannot be stored (control characters, or a number or date out of range).' }]);
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status === 400 || error instanceof SyntaxError || UNREADABLE_BODY.has(error.code)) {
    request.log.info({ code: error.code }, 'unreadable request body');
    return sendBrokenRules(reply, [
      {
        code: Rule.InvalidRequest,
        field: 'body',
        message: error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'The request body is empty.' : 'The request body is not valid JSON.',
      },
    ]);
  }
  if (status === 413) return sendProblem(reply, 413, 'The request body is larger than the limit of 1 MiB.');
  if (status === 415) {
    return sendProblem(reply, 415, 'Unsupported content type: send JSON (application/json-patch+json, application/json, text/json or application/*+json).');
  }
  if (status === 429) return sendProblem(reply, 429, 'Too many requests; try again later.');
  if (status >= 400 && status < 500) return sendProblem(reply, status, null);

  const unknown = findError(error, OutcomeUnknownError);
  if (unknown) {
    // The processor was asked and the outcome could not even be held: no Retry-After, no "try
    // again"; the body names the payment.
    request.log.error({ reference: unknown.reference }, 'outcome unknown: answered 503 naming the payment');
    return sendProblem(reply, 503, unknown.message, { PaymentGuid: unknown.reference });
  }
  const unavailable = findError(error, DatabaseUnavailableError);
  if (unavailable) {
    // One short line per request, not a stack trace each: an outage otherwise floods the log.
    // 503 with Retry-After tells clients to come back.
    request.log.warn({ errorName: error.name, code: unavailable.driverCode }, 'database unavailable: answered 503');
    request.server.databaseAvailability.refused();
    reply.header('Retry-After', '5');
    return sendProblem(reply, 503, 'The service cannot reach its database. Try again shortly.');
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendProblem(reply, 500, null);
}
