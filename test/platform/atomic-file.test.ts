import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileAtomically, replaceFileAtomically } from '../../src/platform/atomic-file.ts';
import { DataDirLockedError, lockDataDir } from '../../src/platform/data-dir-lock.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payments-atomic-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('createFileAtomically', () => {
  it('creates the file whole with its mode, and leaves no temporary file', () => {
    const path = join(dir, 'a.json');
    createFileAtomically(path, '{"a":1}', 0o600);
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('fails with EEXIST when the name is taken, and leaves the existing file as it was', () => {
    const path = join(dir, 'a.json');
    writeFileSync(path, 'first');
    expect(() => createFileAtomically(path, 'second', 0o600)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(path, 'utf8')).toBe('first');
    expect(readdirSync(dir)).toEqual(['a.json']);
  });
});

describe('replaceFileAtomically', () => {
  it('replaces the content, or creates the file, and leaves no temporary file', () => {
    const path = join(dir, 'k.json');
    replaceFileAtomically(path, 'one', 0o600);
    replaceFileAtomically(path, 'two', 0o600);
    expect(readFileSync(path, 'utf8')).toBe('two');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['k.json']);
  });
});

describe('lockDataDir with an unreadable lock file', () => {
  it('takes over one left by a killed process (older than a few seconds)', () => {
    const path = join(dir, 'payments.lock');
    writeFileSync(path, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    const lock = lockDataDir(dir, 'test');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, owner: 'test' });
    lock.release();
  });

  it('release removes only its own lock: one another process took over stays', () => {
    const path = join(dir, 'payments.lock');
    const lock = lockDataDir(dir, 'test');
    const theirs = JSON.stringify({ pid: 1, owner: 'another process', nonce: 'theirs' });
    writeFileSync(path, theirs);
    lock.release();
    expect(readFileSync(path, 'utf8')).toBe(theirs);
  });

  it('leaves a fresh one alone: a process of an older version may be about to write it', () => {
    writeFileSync(join(dir, 'payments.lock'), '');
    expect(() => lockDataDir(dir, 'test')).toThrow(DataDirLockedError);
  });
});
