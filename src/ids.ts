import { randomBytes, randomUUID } from 'node:crypto';

/** Identifiers and random secrets come from here so tests can substitute them. */
export interface Ids {
  uuid(): string;
  /** A random secret of `bytes` bytes, base64url without padding. */
  secret(bytes?: number): string;
}

export const cryptoIds: Ids = {
  uuid: () => randomUUID(),
  secret: (bytes = 32) => randomBytes(bytes).toString('base64url'),
};
