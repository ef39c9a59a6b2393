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

/**
 * A GUID as the API and the database take it: 8-4-4-4-12 hex digits, nothing around it (not the
 * `urn:uuid:` or braced forms, which PostgreSQL's uuid type refuses).
 */
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
