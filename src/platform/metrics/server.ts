import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.ts';

export interface MetricsServer {
  /** The port it listens on (METRICS_PORT, or the one the system gave for 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in the Prometheus text format, on a port of its own (METRICS_PORT), so that it is
 * never reachable through the public port and its proxies: the metrics tell how much a partner
 * pays and how often a processor fails. Anything else is a 404.
 */
export function startMetricsServer(metrics: Metrics, options: { port: number; host: string }): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at GET /metrics.\n');
      return;
    }
    metrics.scrape().then(
      (text) => {
        response.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`The metrics could not be collected: ${(err as Error)?.name ?? 'error'}\n`);
      },
    );
  });
  // A scrape is short: a client that stalls must not hold a socket for long.
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
