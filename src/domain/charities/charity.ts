import { hash } from 'node:crypto';

/** The two registries the directory is built from. */
export type Registry = 'IRS' | 'CRA';

/** Whether a subordinate's central organization (its group exemption holder) is known. */
export type GroupRole = 'central' | 'member';

/** One charity as the directory stores it, in the service's own terms. */
export interface CharityRecord {
  id: string;
  registry: Registry;
  /** IRS: the 9-digit EIN; CRA: the 15-character business number `#########RR####`. */
  registryNumber: string;
  /** The 9 digits every EIN form and every BN with or without its program suffix share. */
  taxIdRoot: string;
  name: string;
  /** searchText(name) */
  searchName: string;
  /** As shown: `XX-XXXXXXX` (US) or the BN (Canada). */
  ein: string;
  address1: string | null;
  /** The IRS "in care of" line. */
  address2: string | null;
  city: string | null;
  /** searchText(city) */
  cityKey: string | null;
  /** State or province code. */
  state: string | null;
  zip: string | null;
  /** ISO 3166 alpha-2 code when known. */
  country: string | null;
  nteeCode: string | null;
  /** Donations are deductible and the organization is in good standing. */
  eligible: boolean;
  /** IRS group exemption number (GEN), when the organization belongs to a group. */
  groupExemption: string | null;
  groupRole: GroupRole | null;
}

/** Fixed namespace of CharityId values (UUID v5); changing it would change every CharityId. */
export const CHARITY_ID_NAMESPACE = '3c8f5b1e-6d0a-5f4e-9b2c-7a1d8e4f6c20';

const namespaces = new Map<string, Buffer>();
function namespaceBytes(namespace: string): Buffer {
  let bytes = namespaces.get(namespace);
  if (!bytes) namespaces.set(namespace, (bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex')));
  return bytes;
}

/** A UUID version 5 (RFC 9562): SHA-1 of the namespace and the name. */
export function uuidV5(namespace: string, name: string): string {
  const ns = namespaceBytes(namespace);
  const input = Buffer.allocUnsafe(16 + Buffer.byteLength(name, 'utf8'));
  ns.copy(input, 0);
  input.write(name, 16, 'utf8');
  const digest = hash('sha1', input, 'buffer');
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** CharityId: stable across re-imports because it depends on the registry and its number only. */
export function charityId(registry: Registry, registryNumber: string): string {
  return uuidV5(CHARITY_ID_NAMESPACE, `${registry}:${registryNumber}`);
}

/** 530196605 -> 53-0196605 */
export function formatUsEin(digits: string): string {
  return `${digits.slice(0, 2)}-${digits.slice(2)}`;
}
