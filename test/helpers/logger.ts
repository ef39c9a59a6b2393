import { createLogger } from '../../src/platform/logging.ts';

/** A logger for services a test builds itself, writing nowhere (tests that read the log use createTestContext's). */
export function testLogger() {
  return createLogger('silent');
}
