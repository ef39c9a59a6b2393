import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomically } from './atomic-file.ts';
import { makePrivateDir } from './private-dir.ts';

export class DataDirLockedError extends Error {}

export interface DataDirLock {
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Seconds after which an unreadable lock file is taken to be abandoned. */
const UNREADABLE_LOCK_SECONDS = 5;

/** The lock file's text; undefined when it is gone or cannot be read (not ours to judge: held). */
function readable(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function abandoned(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > UNREADABLE_LOCK_SECONDS * 1000;
  } catch {
    // Gone meanwhile: the next attempt creates it.
    return true;
  }
}

/**
 * PGlite is single-process: two processes opening one data directory would corrupt it. The
 * first process to create the lock file owns the directory; a lock left by a dead process is
 * taken over.
 */
export function lockDataDir(dataDir: string, owner: string): DataDirLock {
  makePrivateDir(dataDir);
  const path = join(dataDir, 'payments.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    // Ours alone: release() removes the file only while it still holds this nonce, so a process
    // that took the lock over from us (a take-over race) keeps its own.
    const nonce = randomBytes(12).toString('base64url');
    const content = JSON.stringify({ pid: process.pid, owner, since: new Date().toISOString(), nonce });
    try {
      createFileAtomically(path, content, 0o600);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          if (readable(path) === content) rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: { pid?: number; owner?: string } = {};
      const text = readable(path);
      if (text === undefined) continue; // Gone meanwhile (or unreadable for good: the loop ends held).
      try {
        holder = JSON.parse(text);
      } catch {
        // Lock files appear whole (createFileAtomically): one that reads but does not parse was
        // left by a version that wrote it in place and was killed before writing. Taken over once
        // it is a few seconds old (a process of that version could still be between its create and write).
        if (abandoned(path)) {
          rmSync(path, { force: true });
          continue;
        }
      }
      if (typeof holder.pid === 'number' && holder.pid !== process.pid && alive(holder.pid)) {
        throw new DataDirLockedError(
          `The data directory ${dataDir} is in use by process ${holder.pid} (${holder.owner ?? 'unknown'}). ` +
            'The embedded database allows one process at a time: stop that process first, ' +
            'or run with DATABASE_URL pointing at a PostgreSQL server. ' +
            `(A copy of a data directory made while its server ran keeps that server's lock: if no process uses this directory, remove ${path}.)`,
        );
      }
      if (typeof holder.pid === 'number') rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${dataDir}`);
}
