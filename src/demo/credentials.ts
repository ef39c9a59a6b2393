import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PartnerKind } from '../domain/partner.ts';
import { makePrivateDir } from '../platform/private-dir.ts';

export interface DemoPartnerCredentials {
  name: string;
  kind: PartnerKind;
  ClientId: string;
  ClientSecret: string;
  ApiKey: string;
}

export interface DemoGatewayUser {
  partnerClientId: string;
  Username: string;
  Password: string;
  Vendor: string;
}

export interface DemoCredentials {
  note: string;
  partners: DemoPartnerCredentials[];
  gatewayUsers: DemoGatewayUser[];
}

export const CREDENTIALS_FILE = 'demo-credentials.json';

export function credentialsPath(dataDir: string): string {
  return join(dataDir, CREDENTIALS_FILE);
}

export function readCredentials(dataDir: string): DemoCredentials | undefined {
  const path = credentialsPath(dataDir);
  if (!existsSync(path)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as DemoCredentials;
    return { note: parsed.note, partners: parsed.partners ?? [], gatewayUsers: parsed.gatewayUsers ?? [] };
  } catch {
    return undefined;
  }
}

/** Written with mode 0600: the secrets in it are the only plain copies anywhere. */
export function writeCredentials(dataDir: string, credentials: DemoCredentials): void {
  makePrivateDir(dataDir);
  const path = credentialsPath(dataDir);
  writeFileSync(path, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  chmodSync(path, 0o600);
}
