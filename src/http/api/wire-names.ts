import type { Violation } from '../../platform/errors.ts';

/**
 * Surface A's name of a service field: the field's own name with a capital first letter
 * (`firstName` is `FirstName`), but for the fields named here. A path names each of its parts so
 * (`lines[0].amountCents` is `Transactions[0].Amount`).
 */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  lines: 'Transactions',
  amountCents: 'Amount',
  tokenRef: 'TokenGuid',
};

export function wireName(field: string): string {
  return field.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (part) => WIRE_NAMES[part] ?? part.charAt(0).toUpperCase() + part.slice(1));
}

/**
 * A violation as surface A says it: its field by wire name, and each `{field}` of its message as
 * `'WireName'`. A message without placeholders is said as it is.
 */
export function wireViolation(v: Violation): Violation {
  const message = v.message.replace(/\{([A-Za-z_][\w.[\]]*)\}/g, (_m, field: string) => `'${wireName(field)}'`);
  return v.field === undefined ? { ...v, message } : { ...v, field: wireName(v.field), message };
}
