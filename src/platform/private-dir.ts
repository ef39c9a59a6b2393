import { chmodSync, mkdirSync } from 'node:fs';

/**
 * The data directory holds payer data (the embedded database, its write-ahead log), the vault's
 * keys and the demo secrets: a directory this creates is readable by its owner alone (0700), as
 * PostgreSQL requires of its own data directory, whatever the umask. An existing directory keeps
 * the mode its operator gave it; `ours` (a directory only this service uses, the embedded
 * database's) is made 0700 even when it exists, for installations made before.
 */
export function makePrivateDir(path: string, options: { ours?: boolean } = {}): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (options.ours) chmodSync(path, 0o700);
}
