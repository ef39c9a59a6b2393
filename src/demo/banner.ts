import type { Config } from '../config.ts';
import { credentialsPath, type DemoCredentials } from './credentials.ts';
import type { DemoSeededElsewhere } from './seed.ts';

/** Each demo partner's processors: a for-profit partner's payments must name one (ProcessorGuid or MKey). */
export type DemoProcessors = Map<string, { id: string; mkey: string | null }[]>;

/**
 * Demo secrets saved at first start that were rotated since (payments partner rotate-secret /
 * rotate-api-key; gateway-user reset-password, keyed by Username).
 */
export interface StaleSecrets {
  partners: Map<string, { secret: boolean; apiKey: boolean }>;
  gatewayPasswords: Set<string>;
}

const rotated = ' (rotated since: no longer valid; the CLI printed the new one)';

/**
 * What `npm start` prints: where the service listens and, with the demo, how to call it.
 * `secrets`: the demo partners' ClientSecret and ApiKey and the gateway user's password are
 * printed only to a terminal. Anywhere else the output is a log (docker, journald, a redirect),
 * and a log never holds a secret; the banner then says which file holds them.
 */
export function banner(
  config: Config,
  credentials: DemoCredentials | DemoSeededElsewhere | undefined,
  processors: DemoProcessors,
  staleSecrets: StaleSecrets,
  options: { secrets: boolean },
): string {
  const base = config.publicBaseUrl;
  const lines = [
    '',
    `Payment service listening on ${base}`,
    `  database: ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}/pglite`}`,
    `  API docs: ${base}/docs   OpenAPI: ${base}/openapi.json   SOAP gateway: ${base}/admin/ws/recurring.asmx`,
  ];
  if (credentials && 'elsewhere' in credentials) {
    lines.push('', 'Demo partners (seeded by another server on this database: their secrets are in its data directory, demo-credentials.json; this server left them as they are):');
    for (const p of credentials.partners) lines.push(`  ${p.name} (${p.kind})  ClientId: ${p.ClientId}`);
    lines.push('  New secrets, if those are lost: payments partner rotate-secret <ClientId> (and rotate-api-key); clients holding the old ones stop working.');
  } else if (credentials) {
    const file = credentialsPath(config.dataDir);
    const secret = (value: string, name: string) => (options.secrets ? value : `<${name} from ${file}>`);
    lines.push('', `Demo partners (kept in ${file}):`);
    if (!options.secrets) lines.push('  (secrets are printed only to a terminal: this output may be a log; read them from that file)');
    for (const p of credentials.partners) {
      const stale = staleSecrets.partners.get(p.ClientId);
      lines.push(
        `  ${p.name} (${p.kind})`,
        `    ClientId:     ${p.ClientId}`,
        `    ClientSecret: ${secret(p.ClientSecret, 'ClientSecret')}${stale?.secret ? rotated : ''}`,
        `    ApiKey:       ${secret(p.ApiKey, 'ApiKey')}${stale?.apiKey ? rotated : ''}`,
      );
      for (const proc of processors.get(p.ClientId) ?? []) lines.push(`    ProcessorGuid: ${proc.id}${proc.mkey ? ` (MKey ${proc.mkey})` : ''}`);
    }
    for (const u of credentials.gatewayUsers) {
      const stale = staleSecrets.gatewayPasswords.has(u.Username) ? ' (reset since: no longer valid; the CLI printed the new one)' : '';
      lines.push(`  Gateway user: Username ${u.Username}  Password ${secret(u.Password, 'Password')}${stale}  Vendor ${u.Vendor}`);
    }
    const first = credentials.partners[0];
    if (first) {
      const body = JSON.stringify({ ClientId: first.ClientId, ClientSecret: secret(first.ClientSecret, 'ClientSecret') });
      lines.push(
        '',
        'Get an access token (then send it as the AccessToken header):',
        `  curl -s -X POST ${base}/api/ClientSession -H 'Content-Type: application/json' -d '${body}'`,
      );
    }
  }
  return lines.join('\n') + '\n\n';
}
