import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

const START_SCRIPT = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string).split(/\s+/);

/** The Node.js flags `npm start` runs the service with (its `start` script): service processes started here and by benchmarks get the same. */
export const SERVER_NODE_FLAGS: string[] = START_SCRIPT.filter((arg) => arg.startsWith('--'));

/** The file `npm start` runs (bin/start.js): the service behind its Node version check. */
export const SERVER_ENTRY = START_SCRIPT.at(-1)!;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Environment for a child process: this one's, minus the suite's database unless given. */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  return { ...base, LOG_LEVEL: 'warn', ...env } as NodeJS.ProcessEnv;
}

export interface RunningService {
  port: number;
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  process: ChildProcess;
}

/** Starts the service as `npm start` runs it and waits until it prints its banner. */
export async function startService(env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<RunningService> {
  const port = await freePort();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER_ENTRY], { cwd: ROOT, env: childEnv({ PORT: String(port), ...env }) });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in time:\n${out}`)), timeoutMs);
    const check = () => {
      if (out.includes('Payment service listening on')) {
        clearTimeout(timer);
        setTimeout(resolve, 50);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`service exited during start:\n${out}`));
    });
  });
  return {
    port,
    output: () => out,
    process: child,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs the operator CLI as `npx payments` would, and collects its output. */
export function runCliProcess(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/payments.js', ...args], { cwd: ROOT, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a service and resolves with its exit when it refuses to start. */
export function runServiceExpectingExit(env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER_ENTRY], { cwd: ROOT, env: childEnv({ PORT: '0', ...env }) });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output: out });
    });
  });
}
