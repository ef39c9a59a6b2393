import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomically, replaceFileAtomically } from '../../platform/atomic-file.ts';
import { KeyRing, type VaultKey, generateKey, parseKey } from './keys.ts';
import { VaultError } from '../../platform/errors.ts';
import { makePrivateDir } from '../../platform/private-dir.ts';

/**
 * The embedded default's keys: DATA_DIR/vault-keys.json, mode 0600, generated on first use.
 * It lists every key (the current one and the older ones that may still open ciphertexts);
 * `payments vault rotate-key` appends a new current key.
 */
export const KEY_FILE = 'vault-keys.json';

interface KeyFileJson {
  note: string;
  current: string;
  keys: { id: string; key: string; createdAt: string }[];
}

export function keyFilePath(dataDir: string): string {
  return join(dataDir, KEY_FILE);
}

function toRing(json: KeyFileJson, path: string): KeyRing {
  const keys = json.keys.map((k, i) => {
    const key = parseKey(k.key, `key ${i + 1} of ${path}`);
    if (key.id !== k.id) throw new VaultError(`key ${i + 1} of ${path} does not match its id`);
    return key;
  });
  const current = keys.find((k) => k.id === json.current);
  if (!current) throw new VaultError(`${path} names a current key it does not hold`);
  return new KeyRing(current, keys);
}

/** The file's keys, or undefined when there is no file yet. */
export function readKeyFile(dataDir: string): KeyRing | undefined {
  const path = keyFilePath(dataDir);
  // An empty file holds no key (see createKeyFile): as if there were none.
  if (!existsSync(path) || statSync(path).size === 0) return undefined;
  let json: KeyFileJson;
  try {
    json = JSON.parse(readFileSync(path, 'utf8')) as KeyFileJson;
  } catch {
    throw new VaultError(`${path} is not readable JSON`);
  }
  if (!json || typeof json.current !== 'string' || !Array.isArray(json.keys)) throw new VaultError(`${path} is not a vault key file`);
  return toRing(json, path);
}

function render(ring: KeyRing, keys: VaultKey[], createdAt: Map<string, string>, now: Date): string {
  const json: KeyFileJson = {
    note: 'Vault keys of the payment service. Losing this file loses every stored card and bank token; keep it private and backed up.',
    current: ring.current.id,
    keys: keys.map((k) => ({ id: k.id, key: k.key.toString('base64'), createdAt: createdAt.get(k.id) ?? now.toISOString() })),
  };
  return JSON.stringify(json, null, 2) + '\n';
}

function previousDates(dataDir: string): Map<string, string> {
  try {
    const json = JSON.parse(readFileSync(keyFilePath(dataDir), 'utf8')) as KeyFileJson;
    return new Map(json.keys.map((k) => [k.id, k.createdAt]));
  } catch {
    return new Map();
  }
}

/**
 * Creates the key file with one new key, unless another process created it first (exclusive
 * create), and returns the keys in the file either way.
 */
export function createKeyFile(dataDir: string, now: Date): KeyRing {
  makePrivateDir(dataDir);
  const key = generateKey();
  const ring = new KeyRing(key);
  const path = keyFilePath(dataDir);
  if (existsSync(path) && statSync(path).size === 0) {
    // Left by a version that created the file and then wrote it, killed in between: it holds no
    // key, so nothing was ever sealed under one. (Files now appear whole: createFileAtomically.)
    rmSync(path, { force: true });
  }
  try {
    createFileAtomically(path, render(ring, [key], new Map(), now), 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readKeyFile(dataDir)!;
}

/** Writes a new key into the file as the current one, keeping the older keys. Atomic (rename). */
export function addKeyToFile(dataDir: string, now: Date): KeyRing {
  const existing = readKeyFile(dataDir);
  const key = generateKey();
  const keys = existing ? [key, ...existing.ids().map((id) => existing.get(id)!)] : [key];
  const ring = new KeyRing(key, keys);
  writeKeys(dataDir, ring, keys, now);
  return ring;
}

/** Rewrites the file with only the given keys (the current one always stays). */
export function keepOnlyKeys(dataDir: string, keepIds: Set<string>, now: Date): string[] {
  const existing = readKeyFile(dataDir);
  if (!existing) return [];
  const keys = existing.ids().filter((id) => id === existing.current.id || keepIds.has(id)).map((id) => existing.get(id)!);
  const removed = existing.ids().filter((id) => !keys.some((k) => k.id === id));
  if (removed.length) writeKeys(dataDir, new KeyRing(existing.current, keys), keys, now);
  return removed;
}

function writeKeys(dataDir: string, ring: KeyRing, keys: VaultKey[], now: Date) {
  makePrivateDir(dataDir);
  // Synced before the rename: a rotated key seals tokens at once, and must not be lost to a power cut.
  replaceFileAtomically(keyFilePath(dataDir), render(ring, keys, previousDates(dataDir), now), 0o600);
}
