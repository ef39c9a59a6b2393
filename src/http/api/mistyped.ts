/**
 * A body that failed its schema may still be read by a route that reports every broken rule at
 * once (payments: the schema's and the business rules'). Such a route first drops every value
 * whose JSON type is not the one its schema declares, so the reading code only ever meets the
 * types it expects; the schema's own violations already name those fields.
 */
type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema };

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matches(value: unknown, declared: string | string[] | undefined): boolean {
  if (declared === undefined) return true;
  const types = Array.isArray(declared) ? declared : [declared];
  const actual = typeOf(value);
  return types.includes(actual) || (actual === 'integer' && types.includes('number'));
}

export function dropMistyped(value: unknown, schema: JsonSchema): unknown {
  if (!matches(value, schema.type)) return undefined;
  if (Array.isArray(value)) {
    return schema.items ? value.map((v) => dropMistyped(v, schema.items!)).filter((v) => v !== undefined) : value;
  }
  if (value && typeof value === 'object' && schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const sub = schema.properties[key];
      const kept = sub ? dropMistyped(v, sub) : v;
      if (kept !== undefined) out[key] = kept;
    }
    return out;
  }
  return value;
}
