import type { FastifySchemaValidationError } from 'fastify';
import { Rule, type RuleViolation } from '../../domain/rules.ts';

/** `/Transactions/0/Amount` -> `Transactions[0].Amount` */
function fieldPath(instancePath: string, missing?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (missing) parts.push(missing);
  let path = '';
  for (const p of parts) path += /^\d+$/.test(p) ? `[${p}]` : path ? `.${p}` : p;
  return path;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

/**
 * Turns the schema validator's errors into one violation per field, with a message that names
 * the field and the rule (the first error of a field wins).
 */
export function schemaViolations(errors: FastifySchemaValidationError[], context = 'body'): RuleViolation[] {
  const byField = new Map<string, RuleViolation>();
  for (const e of errors) {
    const params = (e.params ?? {}) as Record<string, unknown>;
    const missing = e.keyword === 'required' ? String(params.missingProperty) : undefined;
    const field = fieldPath(e.instancePath, missing) || (context === 'body' ? 'body' : context);
    if (byField.has(field)) continue;
    byField.set(field, describe(field, e.keyword, params));
  }
  return [...byField.values()];
}

function describe(field: string, keyword: string, params: Record<string, unknown>): RuleViolation {
  switch (keyword) {
    case 'required':
      return { code: Rule.Required, field, message: `'${field}' is required.` };
    case 'maxLength':
      return { code: Rule.MaxLength, field, message: `'${field}' must be at most ${params.limit} characters.` };
    case 'minLength':
      return Number(params.limit) <= 1
        ? { code: Rule.Required, field, message: `'${field}' must not be empty.` }
        : { code: Rule.InvalidFormat, field, message: `'${field}' must be at least ${params.limit} characters.` };
    case 'maxItems':
      return { code: Rule.OutOfRange, field, message: `'${field}' may have at most ${params.limit} items.` };
    case 'minItems':
      return { code: Rule.Required, field, message: `'${field}' must have at least ${params.limit} item(s).` };
    case 'format':
      return params.format === 'uuid'
        ? { code: Rule.InvalidFormat, field, message: `'${field}' must be a GUID.` }
        : { code: Rule.InvalidFormat, field, message: `'${field}' is not a valid ${params.format}.` };
    case 'pattern':
      return { code: Rule.InvalidFormat, field, message: `'${field}' has an invalid format.` };
    case 'type':
      return {
        code: Rule.InvalidType,
        field,
        message: `'${field}' must be ${TYPE_NAMES[String(params.type).split(',')[0]!] ?? String(params.type)}.`,
      };
    case 'enum':
    case 'const':
      return { code: Rule.InvalidValue, field, message: `'${field}' is not one of the allowed values.` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { code: Rule.OutOfRange, field, message: `'${field}' must be ${params.comparison} ${params.limit}.` };
    default:
      return { code: Rule.InvalidValue, field, message: `'${field}' is not valid.` };
  }
}
