import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomically } from '../atomic-file.ts';

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
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'payments.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      createFileAtomically(path, JSON.stringify({ pid: process.pid, owner, since: new Date().toISOString() }), 0o600);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: { pid?: number; owner?: string } = {};
      try {
        holder = JSON.parse(readFileSync(path, 'utf8'));
      } catch {
        // Lock files appear whole (createFileAtomically): an unreadable one was left by a version
        // that wrote it in place and was killed before writing. Taken over once it is a few
        // seconds old (a process of that version could still be between its create and write).
        if (abandoned(path)) {
          rmSync(path, { force: true });
          continue;
        }
      }
      if (typeof holder.pid === 'number' && holder.pid !== process.pid && alive(holder.pid)) {
        throw new DataDirLockedError(
          `The data directory ${dataDir} is in use by process ${holder.pid} (${holder.owner ?? 'unknown'}). ` +
            'The embedded database allows one process at a time: stop that process first, ' +
            'or run with DATABASE_URL pointing at a PostgreSQL server.',
        );
      }
      if (typeof holder.pid === 'number') rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${dataDir}`);
}
