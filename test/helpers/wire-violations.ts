import { ErrorCode } from '../../src/http/api/error-codes.ts';
import { wireViolation } from '../../src/http/api/wire-names.ts';
import type { RuleName } from '../../src/domain/rules.ts';
import type { Violation } from '../../src/platform/errors.ts';

/**
 * Violations as surface A says them (its ErrorCode numbers): tests of a service or a rule assert
 * what the partner reads.
 */
export function asWire(violations: readonly Violation[]): { code: number; field?: string; message: string }[] {
  return violations.map((v) => ({ ...v, code: ErrorCode[v.code as RuleName] }));
}

/** Like `asWire`, with the fields and `{field}` placeholders of a service's camelCase violations in surface A's names too. */
export function asApiWire(violations: readonly Violation[]): { code: number; field?: string; message: string }[] {
  return asWire(violations.map(wireViolation));
}

/** For `.catch()`: a ValidationError rethrown with its violations as surface A says them. */
export function rethrowAsWire(err: unknown): never {
  const violations = (err as { violations?: Violation[] } | null)?.violations;
  throw violations ? Object.assign(err as object, { violations: asWire(violations) }) : err;
}
