import { accessSync, constants, statSync } from 'node:fs';
import { UsageError } from './command.ts';

/** The errno codes an operator meets naming a file, in words (an audit found "ENOENT" printed). */
const WORDS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many levels of symbolic links',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EIO: 'input/output error',
};

/** An error of the file system in words; a code not listed stays as it is, so nothing is hidden. */
export function describeFileError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code) return WORDS[code] ?? code;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Refuses a file the command could not read, before the store opens: stat and access only, since
 * opening a named pipe to try it would wait for a writer.
 */
export function checkReadableFile(path: string): void {
  try {
    if (statSync(path).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    accessSync(path, constants.R_OK);
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${describeFileError(err)}`);
  }
}
