import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, surelyNotApplied } from '../../../src/platform/database/errors.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });
/** Drizzle wraps the driver's error. */
const wrapped = (cause: Error) => Object.assign(new Error('Failed query: update "payments" ...'), { cause });

describe('database errors (an outage audit)', () => {
  it('tell an unreachable database or a lost connection from a refused statement', () => {
    for (const err of [
      withCode('ECONNREFUSED'),
      wrapped(withCode('ECONNREFUSED')),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('57P03', 'the database system is starting up'),
      withCode('08006'),
      withCode('53300', 'sorry, too many clients already'),
      wrapped(withCode('55000', 'database "payments" is not currently accepting connections')),
    ]) {
      expect(isDatabaseUnavailable(err), err.message).toBe(true);
    }
    // 55000 is also a statement's error ("object not in prerequisite state"): only the closed database is an outage.
    for (const err of [withCode('23505'), wrapped(withCode('22P02')), new TypeError('x is undefined'), withCode('40001'), withCode('55000', 'currval of sequence "s" is not yet defined in this session')]) {
      expect(isDatabaseUnavailable(err), err.message).toBe(false);
    }
  });

  it('say a statement surely did not take effect only when the server refused it or no connection was made', () => {
    for (const err of [withCode('23505'), wrapped(withCode('23505')), withCode('40P01'), withCode('ECONNREFUSED'), new Error('timeout exceeded when trying to connect')]) {
      expect(surelyNotApplied(err), err.message).toBe(true);
    }
    // The connection ended around the statement or its commit: it may have been applied.
    for (const err of [
      new Error('Connection terminated unexpectedly'),
      wrapped(new Error('Connection terminated unexpectedly')),
      withCode('57P01'),
      withCode('08006'),
      withCode('XX000'),
      withCode('ECONNRESET'),
      new TypeError('unknown'),
    ]) {
      expect(surelyNotApplied(err), err.message).toBe(false);
    }
  });
});
