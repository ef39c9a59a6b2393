import type { FeeSchedule } from '../domain/fee-schedule.ts';
import type { Services } from '../composition.ts';
import { type DemoCredentials, type DemoGatewayUser, type DemoPartnerCredentials, readCredentials, writeCredentials } from './credentials.ts';

const DEMO_KEY = 'demo';
const DEMO_LOCK = 727_002;

interface DemoMarker {
  nonProfit: string;
  forProfit: string;
}

/** The demo contract's plausible rates: card 2.9 %, platform 1 %, maximum 5 %, 0.30, ACH 0.8 % capped at 5.00. */
function demoSchedule(groupId: number): FeeSchedule {
  const noCommission = groupId === 9 || groupId === 12;
  return {
    groupId,
    cardFeeRate: '2.9',
    platformCommissionRate: noCommission ? '0' : '1',
    maxCommissionRate: noCommission ? '0' : '5',
    perTransFeeCents: 30,
    cardTypeFeesCents: {},
    achFeeRate: '0.8',
    achFeeCapCents: 500,
  };
}

/** The non-profit partner's SOAP gateway user; an existing one gets a new password (its old one is only in a lost file). */
async function demoGatewayUser(services: Services, partnerClientId: string): Promise<DemoGatewayUser> {
  const Username = 'demo-charity-gateway';
  const Vendor = 'DemoCharity';
  const existing = (await services.gatewayUsers.list(partnerClientId)).find((u) => u.username === Username);
  const Password = existing
    ? await services.gatewayUsers.resetPassword(Username)
    : (await services.gatewayUsers.create({ partnerId: partnerClientId, username: Username, vendor: Vendor })).password;
  return { partnerClientId, Username, Password, Vendor };
}

export async function createDemoPartner(services: Services, name: string, kind: 'non-profit' | 'for-profit') {
  const { partners } = services;
  const creds = await partners.createPartner({ name, kind });
  await partners.createIntegrationSource(creds.clientId, { name: `${name} website`, duplicateCheck: true });
  await partners.createProcessor(creds.clientId, {
    name: 'Simulator',
    mkey: kind === 'non-profit' ? 'demo-nonprofit-simulator' : 'demo-merchant-simulator',
  });
  const groups = kind === 'non-profit' ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] : [12];
  for (const g of groups) await partners.setSchedule(creds.clientId, demoSchedule(g));
  if (kind === 'non-profit') await partners.createOrganization(creds.clientId, { name: 'Demo Community Food Bank' });
  const entry: DemoPartnerCredentials = { name, kind, ClientId: creds.clientId, ClientSecret: creds.clientSecret, ApiKey: creds.apiKey };
  return entry;
}

/** Demo partners seeded by another server on this database: their secrets are in that server's data directory. */
export interface DemoSeededElsewhere {
  elsewhere: true;
  partners: { name: string; kind: DemoPartnerCredentials['kind']; ClientId: string }[];
}

/**
 * Seeds the demo environment once per database (a marker row records it) and returns its
 * credentials, kept in DATA_DIR/demo-credentials.json. A server whose data directory lacks that
 * file, on a database another server seeded (a second process on a shared PostgreSQL database),
 * leaves the demo partners as they are: changing their secrets would lock out the server and the
 * clients that hold them. It is told which partners they are instead.
 */
export async function seedDemo(services: Services, dataDir: string): Promise<DemoCredentials | DemoSeededElsewhere> {
  // Two servers starting at once on one PostgreSQL database seed one demo environment.
  return services.installation.exclusively(DEMO_LOCK, async () => {
    // The charity directory's shipped US and Canadian samples (once per database).
    await services.charityImport.importSamplesOnce();
    return seedOnce(services, dataDir);
  });
}

async function seedOnce(services: Services, dataDir: string): Promise<DemoCredentials | DemoSeededElsewhere> {
  const current = await services.installation.fact<DemoMarker>(DEMO_KEY);
  if (!current) {
    const nonProfit = await createDemoPartner(services, 'Demo Charity Partner', 'non-profit');
    const forProfit = await createDemoPartner(services, 'Demo Merchant Partner', 'for-profit');
    const value: DemoMarker = { nonProfit: nonProfit.ClientId, forProfit: forProfit.ClientId };
    await services.installation.recordFact(DEMO_KEY, value);
    const credentials: DemoCredentials = {
      note: 'Demo credentials generated on first start. Keep this file private; the database holds only hashes.',
      partners: [nonProfit, forProfit],
      gatewayUsers: [await demoGatewayUser(services, nonProfit.ClientId)],
    };
    writeCredentials(dataDir, credentials);
    return credentials;
  }
  const saved = readCredentials(dataDir);
  const ids = [current.nonProfit, current.forProfit];
  if (saved && ids.every((id) => saved.partners.some((p) => p.ClientId === id))) {
    if (saved.gatewayUsers.length === 0) {
      saved.gatewayUsers = [await demoGatewayUser(services, current.nonProfit)];
      writeCredentials(dataDir, saved);
    }
    return saved;
  }
  const partners: DemoSeededElsewhere['partners'] = [];
  for (const id of ids) {
    const p = await services.partners.getPartner(id);
    partners.push({ name: p.name, kind: p.kind, ClientId: id });
  }
  return { elsewhere: true, partners };
}
