import { readFileSync } from 'node:fs';
import type { FastifyRequest } from 'fastify';

/**
 * Transport security. The service terminates TLS itself when TLS_CERT_FILE and TLS_KEY_FILE are
 * set (PEM; the certificate file may hold the chain). With NODE_ENV=production the gateway
 * refuses a request that did not arrive over HTTPS: either this server's own TLS, or a trusted
 * proxy (TRUST_PROXY) saying so in X-Forwarded-Proto.
 */
export function httpsServerOptions(config: { tlsCertFile?: string; tlsKeyFile?: string }): { https?: { cert: Buffer; key: Buffer } } {
  if (!config.tlsCertFile || !config.tlsKeyFile) return {};
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`${what} ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  return { https: { cert: read(config.tlsCertFile, 'TLS_CERT_FILE'), key: read(config.tlsKeyFile, 'TLS_KEY_FILE') } };
}

/** Fastify's `protocol` is https for our own TLS, and follows X-Forwarded-Proto only when the proxy is trusted. */
export function arrivedOverHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}
