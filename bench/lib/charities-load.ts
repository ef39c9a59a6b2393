/**
 * A closed-loop load generator with exact percentiles: `connections` clients each send their next
 * request as soon as the previous one is answered, for `seconds`. autocannon reports whole
 * milliseconds and no p95, which the charity search targets are written in.
 */
import http from 'node:http';

export interface LatencySummary {
  requests: number;
  requestsPerSec: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export async function closedLoop(options: { baseUrl: string; paths: string[]; connections: number; seconds: number }): Promise<LatencySummary> {
  const url = new URL(options.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let next = 0;
  const deadline = performance.now() + options.seconds * 1000;
  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.get({ host: url.hostname, port: url.port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  const client = async () => {
    while (performance.now() < deadline) {
      const path = options.paths[next++ % options.paths.length]!;
      const started = performance.now();
      try {
        const status = await get(path);
        latencies.push(performance.now() - started);
        statuses[status] = (statuses[status] ?? 0) + 1;
      } catch {
        errors++;
      }
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: options.connections }, client));
  const elapsed = (performance.now() - began) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    requestsPerSec: Math.round(latencies.length / elapsed),
    p50Ms: round(percentile(latencies, 50)),
    p95Ms: round(percentile(latencies, 95)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(latencies[latencies.length - 1] ?? 0),
    statuses,
    errors,
  };
}
