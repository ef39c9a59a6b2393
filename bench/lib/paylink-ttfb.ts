import { Agent, request } from 'node:http';

export interface TtfbResult {
  requests: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  bytes: number;
}

/**
 * Time to first byte of GET `url`, one request at a time over a keep-alive connection (what one
 * payer sees on an otherwise idle server): from sending the request to the response head arriving.
 * High-resolution (autocannon reports whole milliseconds, too coarse for a 20 ms target).
 */
export async function measureTtfb(url: string, options: { seconds: number; warmup?: number }): Promise<TtfbResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const one = () =>
    new Promise<{ ms: number; bytes: number }>((resolve, reject) => {
      const start = process.hrtime.bigint();
      let first = 0n;
      const req = request(url, { agent }, (res) => {
        first = process.hrtime.bigint();
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => (res.statusCode === 200 ? resolve({ ms: Number(first - start) / 1e6, bytes }) : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
  for (let i = 0; i < (options.warmup ?? 200); i++) await one();
  const times: number[] = [];
  let bytes = 0;
  const until = Date.now() + options.seconds * 1000;
  while (Date.now() < until) {
    const r = await one();
    times.push(r.ms);
    bytes = r.bytes;
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  const at = (q: number) => Number(times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2));
  return { requests: times.length, p50Ms: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99), maxMs: Number(times[times.length - 1]!.toFixed(2)), bytes };
}
