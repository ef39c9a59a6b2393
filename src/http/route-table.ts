import type { FastifyInstance } from 'fastify';

/**
 * Remembers every registered route so that a request for a known path with the wrong method
 * can be answered 405 (with Allow) instead of 404.
 */
export class RouteTable {
  readonly #routes: { pattern: RegExp; methods: Set<string> }[] = [];

  track(app: FastifyInstance) {
    app.addHook('onRoute', (route) => {
      const url = route.url.toLowerCase().replace(/\/+$/, '') || '/';
      const source = '^' + url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+') + '/?$';
      let entry = this.#routes.find((r) => r.pattern.source === source);
      if (!entry) {
        entry = { pattern: new RegExp(source, 'i'), methods: new Set() };
        this.#routes.push(entry);
      }
      for (const m of Array.isArray(route.method) ? route.method : [route.method]) entry.methods.add(m.toUpperCase());
    });
  }

  /** The methods the path does answer, or an empty list for an unknown path. */
  allowedMethods(url: string): string[] {
    const path = url.split('?')[0] ?? '/';
    const methods = new Set<string>();
    for (const r of this.#routes) if (r.pattern.test(path)) for (const m of r.methods) methods.add(m);
    return [...methods].sort();
  }
}
