import type { Violation } from '../../platform/errors.ts';

/**
 * Surface A's name of a service field: the field's own name with a capital first letter
 * (`firstName` is `FirstName`), but for the fields named here. A path names each of its parts so
 * (`lines[0].amountCents` is `Transactions[0].Amount`).
 */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  amountCents: 'Amount',
  cvNum: 'CVNum',
  integrationSourceId: 'IntegrationSource',
  lines: 'Transactions',
  organizationId: 'OrganizationGuid',
  preFeeAmountCents: 'PreFeeAmount',
  processorId: 'ProcessorGuid',
  profileId: 'RecurringProfileGuid',
  surchargeCents: 'Surcharge',
  tokenRef: 'TokenGuid',
};

const NONE: ReadonlySet<string> = new Set();

export function wireName(field: string, asSent: ReadonlySet<string> = NONE): string {
  return field.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (part) => (asSent.has(part) ? part : (WIRE_NAMES[part] ?? part.charAt(0).toUpperCase() + part.slice(1))));
}

/**
 * A violation as surface A says it: its field by wire name, and each `{field}` of its message as
 * `'WireName'`. A message without placeholders is said as it is. `asSent` are names the request
 * spells as the service does (a route's query parameters, `paymentId`): said as they are.
 */
export function wireViolation<V extends Violation>(v: V, asSent: ReadonlySet<string> = NONE): V {
  const message = v.message.replace(/\{([A-Za-z_][\w.[\]]*)\}/g, (_m, field: string) => `'${wireName(field, asSent)}'`);
  return v.field === undefined ? { ...v, message } : { ...v, field: wireName(v.field, asSent), message };
}
