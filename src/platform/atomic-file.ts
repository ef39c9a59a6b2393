import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `path` with `content`, only if it does not exist (EEXIST otherwise), so that no one
 * ever sees it empty or torn: the content is written and synced to a temporary file first, which
 * is then hard-linked into place (a link is atomic and fails when the name is taken). A plain
 * exclusive create leaves an empty file when the process is killed between the create and the
 * write, and an unsynced one can come back empty after a power cut. On a filesystem without hard
 * links it falls back to an exclusive create, then write and sync.
 */
export function createFileAtomically(path: string, content: string, mode: number): void {
  const temporary = syncedTemporary(path, content, mode);
  try {
    linkSync(temporary, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || !['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(code ?? '')) throw err;
    writeSynced(path, content, mode);
  } finally {
    rmSync(temporary, { force: true });
  }
  syncDirectory(dirname(path));
}

/**
 * Replaces `path` (or creates it) with `content`: written and synced to a temporary file, then
 * renamed over it, so a reader sees the old file or the new one, never a torn or empty one.
 */
export function replaceFileAtomically(path: string, content: string, mode: number): void {
  const temporary = syncedTemporary(path, content, mode);
  try {
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
  syncDirectory(dirname(path));
}

/** A new file beside `path` (same directory, so same filesystem) holding `content`, synced. */
function syncedTemporary(path: string, content: string, mode: number): string {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeSynced(temporary, content, mode);
  return temporary;
}

function writeSynced(path: string, content: string, mode: number): void {
  const fd = openSync(path, 'wx', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes the new name itself durable; not every platform can open a directory, which is then left to the OS. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Best effort.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
