import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { SERVER_NODE_FLAGS } from '../../test/helpers/process.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export interface BenchServer {
  url: string;
  info: Record<string, unknown> & { token: string; partner: Record<string, string> };
  child: ChildProcess;
  /** Resident memory of the server process, in MB (from /proc). */
  rssMb(): number;
  stop(): Promise<void>;
}

/** Starts a server script (default: bench/lib/serve.ts) in a child process and waits for READY. */
export async function startServer(env: Record<string, string | undefined> = {}, script = 'bench/lib/serve.ts'): Promise<BenchServer> {
  // Metrics off unless the benchmark turns them on (METRICS_PORT): figures of one run compare alike.
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, script], { cwd: ROOT, env: { ...process.env, METRICS_PORT: 'off', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let buffer = '';
  const ready = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      buffer += d;
      const line = buffer.split('\n').find((l) => l.startsWith('READY '));
      if (line) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  const [, port, json] = /^READY (\d+) (.*)$/.exec(ready)!;
  return {
    url: `http://127.0.0.1:${port}`,
    info: JSON.parse(json!),
    child,
    rssMb() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      } catch {
        return 0;
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface LoadResult {
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyP97_5Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** Runs autocannon for `seconds` and summarises. */
export async function load(options: autocannon.Options & { seconds?: number }): Promise<LoadResult> {
  const result = await autocannon({ connections: 10, ...options, duration: options.seconds ?? 10 });
  return {
    requestsPerSec: Math.round(result.requests.average),
    latencyP50Ms: result.latency.p50,
    latencyP97_5Ms: result.latency.p97_5,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
