import { type KeyObject, createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';
import { type VaultKey } from './keys.ts';
import { VaultError } from '../../platform/errors.ts';

/**
 * AES-256-GCM with a random 96-bit nonce. A ciphertext is one string:
 *
 *   v1:<keyId>:<nonce base64url>:<ciphertext and 16-byte tag base64url>
 *
 * The version, the key id and the caller's context (for tokens: the token's id) are
 * authenticated as associated data, so a ciphertext copied onto another row, or relabelled with
 * another key id, fails to open instead of decrypting into the wrong place.
 */
const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Importing a raw key costs more than the encryption of a card number: import each key once. */
const keyObjects = new WeakMap<VaultKey, KeyObject>();
function keyObject(key: VaultKey): KeyObject {
  let k = keyObjects.get(key);
  if (!k) keyObjects.set(key, (k = createSecretKey(key.key)));
  return k;
}

function associatedData(keyId: string, context: string): Buffer {
  return Buffer.from(`${VERSION}:${keyId}:${context}`, 'utf8');
}

export function seal(key: VaultKey, plain: string, context: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyObject(key), nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(key.id, context));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}:${key.id}:${nonce.toString('base64url')}:${body.toString('base64url')}`;
}

/** The key id a ciphertext was sealed with, or undefined when it is not a vault ciphertext. */
export function keyIdOfCiphertext(ciphertext: string): string | undefined {
  const parts = ciphertext.split(':');
  return parts.length === 4 && parts[0] === VERSION ? parts[1] : undefined;
}

export function open(key: VaultKey, ciphertext: string, context: string): string {
  const parts = ciphertext.split(':');
  if (parts.length !== 4 || parts[0] !== VERSION || parts[1] !== key.id) throw new VaultError('not a vault ciphertext for this key');
  const nonce = Buffer.from(parts[2]!, 'base64url');
  const body = Buffer.from(parts[3]!, 'base64url');
  if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES) throw new VaultError('the ciphertext is truncated');
  const decipher = createDecipheriv('aes-256-gcm', keyObject(key), nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(associatedData(key.id, context));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    // GCM's tag check failed: the ciphertext, its context or the key is not the one it was made with.
    throw new VaultError('the ciphertext failed authentication (tampered, moved, or sealed with another key)');
  }
}
