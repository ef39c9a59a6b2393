import { DEFAULT_PAYMENT_METHOD_TYPES } from '../../modules/partners/partner-service.ts';
import { ConflictError } from '../../platform/errors.ts';
import type { Command } from '../command.ts';
import { UsageError, requiredPositional, requiredString } from '../command.ts';

/** Who is the default when --default is not given: the service's rule, in words. */
const FIRST_IS_DEFAULT = (what: string) => `the partner's first ${what} is the default, a later one is not`;

export const partnerCommands: Command[] = [
  {
    name: 'partner create',
    summary: 'create an API partner; prints its ClientId, ClientSecret and ApiKey once',
    usage: 'partner create --name <name> --kind non-profit|for-profit',
    options: {
      name: { type: 'string', value: '<name>', description: "the partner's name", required: true },
      kind: { type: 'string', value: 'non-profit|for-profit', description: "what the partner is (a for-profit partner's contract has group 12 only)", required: true },
    },
    async run(ctx, { values }) {
      const name = requiredString(values, 'name', this.usage);
      const kind = requiredString(values, 'kind', this.usage);
      const services = await ctx.services();
      const creds = await services.partners.createPartner({ name, kind });
      if (ctx.json) return ctx.out(JSON.stringify({ ClientId: creds.clientId, ClientSecret: creds.clientSecret, ApiKey: creds.apiKey }));
      ctx.out(`Partner "${name}" (${kind}) created. The secret and key are shown this once only:`);
      ctx.out(`ClientId:     ${creds.clientId}`);
      ctx.out(`ClientSecret: ${creds.clientSecret}`);
      ctx.out(`ApiKey:       ${creds.apiKey}`);
    },
  },
  {
    name: 'partner list',
    summary: 'list partners',
    usage: 'partner list',
    async run(ctx) {
      const list = await (await ctx.services()).partners.listPartners();
      if (ctx.json) return ctx.out(JSON.stringify(list));
      if (list.length === 0) return ctx.out('No partners.');
      for (const p of list) ctx.out(`${p.clientId}  ${p.kind.padEnd(10)}  ${p.status.padEnd(8)}  ${p.name}`);
    },
  },
  {
    name: 'partner show',
    summary: "show a partner with its integration sources, processors, organizations and contract",
    usage: 'partner show <clientId>',
    async run(ctx, { positionals }) {
      const id = requiredPositional(positionals, 0, 'clientId', this.usage);
      const { partners } = await ctx.services();
      const p = await partners.getPartner(id);
      const [sources, procs, orgs, contract] = await Promise.all([
        partners.listIntegrationSources(p.clientId),
        partners.listProcessors(p.clientId),
        partners.listOrganizations(p.clientId),
        partners.getContract(p.clientId),
      ]);
      if (ctx.json) return ctx.out(JSON.stringify({ partner: p, integrationSources: sources, processors: procs, organizations: orgs, contract }));
      ctx.out(`${p.name} (${p.kind}, ${p.status})  ClientId ${p.clientId}`);
      ctx.out('Integration sources:');
      for (const s of sources) ctx.out(`  ${s.id}  ${s.name}  duplicate check ${s.duplicateCheck ? 'on' : 'off'}${s.isDefault ? '  (default)' : ''}`);
      ctx.out('Processors:');
      for (const s of procs) ctx.out(`  ${s.id}  ${s.name}  MKey ${s.mkey}  types ${s.paymentMethodTypes.join(',')}${s.isDefault ? '  (default)' : ''}`);
      ctx.out('Organizations:');
      for (const s of orgs) ctx.out(`  ${s.id}  ${s.name}${s.charityId ? `  charity ${s.charityId}` : ''}${s.isDefault ? '  (default)' : ''}`);
      ctx.out(`Contract: ${contract.length} fee schedule(s); see: payments contract show ${p.clientId}`);
    },
  },
  {
    name: 'partner rotate-secret',
    summary: "issue a new ClientSecret; the old one and all sessions made with it stop working",
    usage: 'partner rotate-secret <clientId>',
    async run(ctx, { positionals }) {
      const id = requiredPositional(positionals, 0, 'clientId', this.usage);
      const secret = await (await ctx.services()).partners.rotateSecret(id);
      if (ctx.json) return ctx.out(JSON.stringify({ ClientId: id, ClientSecret: secret }));
      ctx.out(`New ClientSecret (shown this once only): ${secret}`);
    },
  },
  {
    name: 'partner rotate-api-key',
    summary: 'issue a new pay-link ApiKey; the old one stops working',
    usage: 'partner rotate-api-key <clientId>',
    async run(ctx, { positionals }) {
      const id = requiredPositional(positionals, 0, 'clientId', this.usage);
      const key = await (await ctx.services()).partners.rotateApiKey(id);
      if (ctx.json) return ctx.out(JSON.stringify({ ClientId: id, ApiKey: key }));
      ctx.out(`New ApiKey (shown this once only): ${key}`);
    },
  },
  {
    name: 'integration-source create',
    summary: "create an integration source (duplicate checking on unless --no-duplicate-check)",
    usage: 'integration-source create <clientId> --name <name> [--no-duplicate-check] [--default]',
    options: {
      name: { type: 'string', value: '<name>', description: "the source's name", required: true },
      'no-duplicate-check': { type: 'boolean', description: "process a payment whose TranId this source has already paid (checking off)", default: 'checking on: a TranId already paid is not processed again' },
      default: { type: 'boolean', description: "make it the partner's default integration source", default: FIRST_IS_DEFAULT('integration source') },
    },
    async run(ctx, { values, positionals }) {
      const id = requiredPositional(positionals, 0, 'clientId', this.usage);
      const name = requiredString(values, 'name', this.usage);
      const sourceId = await (await ctx.services()).partners.createIntegrationSource(id, {
        name,
        duplicateCheck: values['no-duplicate-check'] !== true,
        isDefault: values.default === true ? true : undefined,
      });
      ctx.out(ctx.json ? JSON.stringify({ IntegrationSource: sourceId }) : `Integration source created: ${sourceId}`);
    },
  },
  {
    name: 'processor create',
    summary: 'create a simulator processor with its active payment method types',
    usage: 'processor create <clientId> --name <name> [--mkey <mkey>] [--types <list>] [--default]',
    options: {
      name: { type: 'string', value: '<name>', description: "the processor's name", required: true },
      mkey: { type: 'string', value: '<mkey>', description: "the processor's MKey, unique within the partner", default: 'generated, mk-<random>' },
      types: { type: 'string', value: '<list>', description: 'active payment method types (1-10), separated by commas: 1,2,3,7', default: DEFAULT_PAYMENT_METHOD_TYPES.join(',') },
      default: { type: 'boolean', description: "make it the partner's default processor", default: FIRST_IS_DEFAULT('processor') },
    },
    async run(ctx, { values, positionals }) {
      const id = requiredPositional(positionals, 0, 'clientId', this.usage);
      const name = requiredString(values, 'name', this.usage);
      let types: number[] | undefined;
      if (typeof values.types === 'string') {
        const texts = values.types.split(',').map((t) => t.trim());
        const bad = texts.find((t) => !/^\d{1,2}$/.test(t));
        if (bad !== undefined) throw new UsageError(`--types takes payment method types 1-10 separated by commas, got "${bad}"\nusage: payments ${this.usage}`);
        types = texts.map(Number);
      }
      const mkey = typeof values.mkey === 'string' ? values.mkey : undefined;
      const processorId = await (await ctx.services()).partners
        .createProcessor(id, { name, mkey, paymentMethodTypes: types, isDefault: values.default === true ? true : undefined })
        .catch((err: unknown) => {
          // The MKey is unique per partner: a second processor with it is the operator's mistake.
          if (err instanceof ConflictError) throw new UsageError(`--mkey "${mkey?.trim()}" is already the MKey of another processor of this partner`);
          throw err;
        });
      ctx.out(ctx.json ? JSON.stringify({ ProcessorGuid: processorId }) : `Processor created: ${processorId}`);
    },
  },
  {
    name: 'organization create',
    summary: 'create an organization (the non-profit that receives funds)',
    usage: 'organization create <clientId> --name <name> [--charity-id <uuid>] [--default]',
    options: {
      name: { type: 'string', value: '<name>', description: "the organization's name", required: true },
      'charity-id': { type: 'string', value: '<uuid>', description: 'the charity it is, from the charity directory (payments charities import)', default: 'none' },
      default: { type: 'boolean', description: "make it the partner's default organization", default: FIRST_IS_DEFAULT('organization') },
    },
    async run(ctx, { values, positionals }) {
      const id = requiredPositional(positionals, 0, 'clientId', this.usage);
      const name = requiredString(values, 'name', this.usage);
      const orgId = await (await ctx.services()).partners.createOrganization(id, {
        name,
        charityId: typeof values['charity-id'] === 'string' ? values['charity-id'] : undefined,
        isDefault: values.default === true ? true : undefined,
      });
      ctx.out(ctx.json ? JSON.stringify({ OrganizationGuid: orgId }) : `Organization created: ${orgId}`);
    },
  },
];
