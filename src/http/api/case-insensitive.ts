/**
 * ASP.NET Core binds JSON property names and query parameter names case-insensitively, and
 * treats `null` like an omitted field. This rewrites incoming objects to the schema's own
 * spelling (recursively) before validation, and drops nulls, so `clientId` binds like `ClientId`.
 */

interface ObjectShape {
  names: Map<string, string>;
  children: Map<string, Shape>;
}
type Shape = { kind: 'object'; object: ObjectShape } | { kind: 'array'; items: Shape };

const shapes = new WeakMap<object, Shape | null>();

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

function shapeOf(schema: JsonSchema | undefined): Shape | null {
  if (!schema || typeof schema !== 'object') return null;
  if (shapes.has(schema)) return shapes.get(schema) ?? null;
  let shape: Shape | null = null;
  if (schema.properties) {
    const names = new Map<string, string>();
    const children = new Map<string, Shape>();
    for (const [name, sub] of Object.entries(schema.properties)) {
      names.set(name.toLowerCase(), name);
      const child = shapeOf(sub);
      if (child) children.set(name, child);
    }
    shape = { kind: 'object', object: { names, children } };
  } else if (schema.items) {
    const items = shapeOf(schema.items);
    if (items) shape = { kind: 'array', items };
  } else {
    for (const variant of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
      shape = shapeOf(variant);
      if (shape) break;
    }
  }
  shapes.set(schema, shape);
  return shape;
}

function apply(value: unknown, shape: Shape): unknown {
  if (shape.kind === 'array') {
    return Array.isArray(value) ? value.map((v) => apply(v, shape.items)) : value;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null) continue;
    const name = shape.object.names.get(key.toLowerCase()) ?? key;
    const child = shape.object.children.get(name);
    out[name] = child ? apply(v, child) : v;
  }
  return out;
}

export function canonicalize(value: unknown, schema: unknown): unknown {
  const shape = shapeOf(schema as JsonSchema);
  return shape ? apply(value, shape) : value;
}

/**
 * The first query parameter given more than once, in any spelling (`Amount=1&amount=2`, or
 * `Amount=1&Amount=2`, which arrives as an array), among those the schema does not declare as
 * arrays. ASP.NET Core would bind the first value silently; a payment API names the ambiguity.
 */
export function repeatedParameter(query: unknown, schema: unknown): string | undefined {
  const shape = shapeOf(schema as JsonSchema);
  if (!shape || shape.kind !== 'object' || !query || typeof query !== 'object') return undefined;
  const properties = (schema as JsonSchema).properties ?? {};
  const seen = new Set<string>();
  for (const [key, value] of Object.entries(query)) {
    const name = shape.object.names.get(key.toLowerCase()) ?? key;
    if (seen.has(name) || (Array.isArray(value) && !declaresArray(properties[name]))) return name;
    seen.add(name);
  }
  return undefined;
}

/** Whether the schema (of a property) takes an array. */
export function declaresArray(schema: JsonSchema | undefined): boolean {
  const type = schema?.type;
  return type === 'array' || (Array.isArray(type) && type.includes('array'));
}
