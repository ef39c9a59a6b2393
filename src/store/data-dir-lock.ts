import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

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
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, owner, since: new Date().toISOString() }));
      closeSync(fd);
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
        // A lock file being written right now, or a torn one: treat as held for this attempt.
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
