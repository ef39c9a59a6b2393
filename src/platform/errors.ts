/**
 * The service's one error vocabulary. Services throw these; each edge maps them to its own wire
 * shape (surface A: BrokenRule arrays and problem details; surface B: code/error or SOAP faults;
 * the pay page: HTML; the CLI: a message and an exit status). No edge inspects a driver's, the
 * vault's or a processor's own errors: what they mean is said here.
 */

/**
 * One broken rule, in the service's terms: `code` names the rule (a key of the rule catalogue,
 * `Rule` in src/domain/rules.ts), `field` the input field in camelCase (with a path for nested
 * ones), and `message` says what is wrong. A message names fields as `{field}` placeholders; each
 * edge writes them in its own words (`{cardNum}` is `'CardNum'` on surface A).
 */
export interface Violation {
  code: string;
  field?: string;
  message: string;
}

/** The request breaks one or more rules; nothing was done. */
export class ValidationError extends Error {
  readonly violations: Violation[];
  constructor(violations: Violation[]) {
    super(violations.map((v) => v.message).join(' '));
    this.name = 'ValidationError';
    this.violations = violations;
  }
}

export function violation(code: string, field: string | undefined, message: string): ValidationError {
  return new ValidationError([{ code, field, message }]);
}

/** What was asked for does not exist, or is not the caller's (the two are never told apart). */
export class NotFoundError extends Error {
  constructor(message = 'No data found.') {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** The request conflicts with the state of what it names (taken, in progress); nothing was done. */
export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

/**
 * The service is at a limit it keeps for itself (so many long exports at once): nothing was done,
 * and the same request may succeed shortly.
 */
export class BusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BusyError';
  }
}

/** An operator's input (the CLI) that the service refuses, with a message the operator can act on. */
export class OperatorInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperatorInputError';
  }
}

/**
 * The database could not be reached, or its connection ended. `mayHaveApplied`: the statement
 * was sent and may have taken effect (a connection lost around a commit); false when it surely
 * did not (refused before it was sent, or the server refused it).
 */
export class DatabaseUnavailableError extends Error {
  readonly mayHaveApplied: boolean;
  /** The driver's SQLSTATE or error code, for logs. */
  readonly driverCode: string | undefined;
  constructor(options: { mayHaveApplied: boolean; driverCode?: string; cause?: unknown }) {
    super('the database is unavailable', { cause: options.cause });
    this.name = 'DatabaseUnavailableError';
    this.mayHaveApplied = options.mayHaveApplied;
    this.driverCode = options.driverCode;
  }
}

/**
 * A write that may or may not have taken effect (its connection was lost around it), and nothing
 * more happened: `reference` names what it would have recorded (a payment that was never sent to
 * its processor, say). Unavailable to the caller like any lost connection.
 */
export class RecordUnknownError extends DatabaseUnavailableError {
  readonly reference: string;
  constructor(reference: string, cause: unknown) {
    super({ mayHaveApplied: true, driverCode: findError(cause, DatabaseUnavailableError)?.driverCode, cause });
    this.name = 'RecordUnknownError';
    this.reference = reference;
  }
}

/**
 * The database refused a value that no rule caught (a NUL character, a number or date out of its
 * range): the request is refused and nothing was written.
 */
export class InvalidStoredValueError extends Error {
  readonly driverCode: string;
  constructor(driverCode: string, cause?: unknown) {
    super('a value cannot be stored', { cause });
    this.name = 'InvalidStoredValueError';
    this.driverCode = driverCode;
  }
}

/** The vault could not seal or open a secret here (a missing or wrong key, a tampered ciphertext). Messages never hold secrets. */
export class VaultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VaultError';
  }
}

/**
 * The processor may have acted, and what it did could not be recorded or read back: `reference`
 * (a PaymentGuid, or a refund's or void's id) must not be paid or sent again; the outcome is
 * confirmed in the background.
 */
export class OutcomeUnknownError extends Error {
  readonly reference: string;
  constructor(reference: string, message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'OutcomeUnknownError';
    this.reference = reference;
  }
}

/**
 * Whether a failed statement surely did not take effect: the database refused it, or it was never
 * sent. A connection lost around it (a commit, say) may have let it take effect.
 */
export function surelyNotApplied(err: unknown): boolean {
  return !(findError(err, DatabaseUnavailableError)?.mayHaveApplied ?? false);
}

/**
 * A payment, refund or void failed before its processor was asked, and nothing of it was
 * recorded: `cause` says what failed (the database, the vault ...), and edges answer by it.
 */
export class NotChargedError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : 'failed before the processor was asked', { cause });
    this.name = 'NotChargedError';
  }
}

type ErrorClass<T> = abstract new (...args: never[]) => T;

/**
 * The error of class `type` that `err` is or wraps (a query builder wraps the driver's error in
 * its own, as `cause`), or undefined.
 */
export function findError<T>(err: unknown, type: ErrorClass<T>): T | undefined {
  let e: unknown = err;
  for (let depth = 0; e !== null && typeof e === 'object' && depth < 6; depth++) {
    if (e instanceof type) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
