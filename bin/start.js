#!/usr/bin/env node
// `npm start`: the service, once this Node is known to run its TypeScript sources.
import { refuseOldNode } from './node-version.js';

refuseOldNode();
// Traces (OTEL_EXPORTER_OTLP_ENDPOINT): the SDK starts before the service's modules load, so that
// its instrumentations patch node:http, Fastify and pg as they are first required. Unset, the
// SDK is not even loaded.
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) {
  try {
    await (await import('../src/platform/tracing.ts')).startTracingFromEnvironment();
  } catch (err) {
    process.stderr.write(`The service could not start: its tracing (OTEL_EXPORTER_OTLP_ENDPOINT) did not: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
}
await import('../src/main.ts');
