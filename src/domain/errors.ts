import type { RuleViolation } from './error-codes.ts';

/**
 * Typed errors of the services. Each surface maps them to its own wire shape (surface A:
 * BrokenRule arrays and problem details; surface B: code/error; the pay page: HTML).
 */
export class ValidationError extends Error {
  readonly violations: RuleViolation[];
  constructor(violations: RuleViolation[]) {
    super(violations.map((v) => v.message).join(' '));
    this.name = 'ValidationError';
    this.violations = violations;
  }
}

export class NotFoundError extends Error {
  constructor(message = 'No data found.') {
    super(message);
    this.name = 'NotFoundError';
  }
}

export function violation(code: number, field: string | undefined, message: string): ValidationError {
  return new ValidationError([{ code, field, message }]);
}
