import { ErrorCode } from '../../src/http/api/error-codes.ts';
import { wireViolation } from '../../src/http/api/wire-names.ts';
import type { RuleName } from '../../src/domain/rules.ts';
import type { Violation } from '../../src/platform/errors.ts';

/**
 * Violations as surface A says them (its ErrorCode numbers, and the wire names of the fields a
 * service names in its own words, `{field}` in its messages): tests of a service or a rule assert
 * what the partner reads.
 */
export function asWire(violations: readonly Violation[]): { code: number; field?: string; message: string }[] {
  return violations.map((v) => ({ ...(v.message.includes('{') ? wireViolation(v) : v), code: ErrorCode[v.code as RuleName] }));
}

/**
 * Violations of a service that speaks its own words (camelCase fields, `{field}` placeholders) as
 * surface A says them: wire field names, `'WireName'` in messages, ErrorCode numbers.
 */
export function asApiWire(violations: readonly Violation[]): { code: number; field?: string; message: string }[] {
  return asWire(violations.map((v) => wireViolation(v)));
}

/** For `.catch()`: a ValidationError rethrown with its violations as surface A says them. */
export function rethrowAsWire(err: unknown): never {
  const violations = (err as { violations?: Violation[] } | null)?.violations;
  throw violations ? Object.assign(err as object, { violations: asWire(violations) }) : err;
}

/**
 * Violations of a service that no edge says as they are (a token service's, checked again by each
 * surface before): each `{field}` placeholder written as `'field'`, the service's own name quoted.
 */
export function withQuotedFields<V extends { message: string }>(violations: readonly V[]): V[] {
  return violations.map((v) => ({ ...v, message: v.message.replace(/\{([A-Za-z_][\w.[\]]*)\}/g, "'$1'") }));
}
