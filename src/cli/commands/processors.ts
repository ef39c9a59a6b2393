import { readFileSync } from 'node:fs';
import { type Command, UsageError, clientIdArg, requiredPositional, requiredString } from '../command.ts';

/** The transaction key from the first line of stdin, so that it never shows in the process list or shell history. */
function keyFromStdin(): string {
  let text: string;
  try {
    text = readFileSync(0, 'utf8');
  } catch {
    text = '';
  }
  const line = (text.split(/\r?\n/)[0] ?? '').trim();
  if (!line) throw new UsageError('the transaction key is read from standard input (its first line), and there was none: echo "$KEY" | payments processors add ...');
  return line;
}

/**
 * Processors on a real acquirer (issue 30): `processors add` with the acquirer's credentials,
 * sealed by the vault (the transaction key from stdin, never an argument, never printed), and
 * `processors test` to check them. `processor create` (partners.ts) makes simulator processors.
 */
export const processorCommands: Command[] = [
  {
    name: 'processors add',
    summary: "add a processor on an adapter (authorizenet: the API login id as --login, the transaction key on stdin)",
    usage: 'processors add <clientId> --adapter authorizenet|simulator --name <name> [--sandbox|--production] [--login <apiLoginId>] [--mkey <mkey>] [--types <list>] [--default]',
    options: {
      adapter: { type: 'string', value: 'authorizenet|simulator', description: 'the processor adapter', required: true },
      name: { type: 'string', value: '<name>', description: "the processor's name", required: true },
      sandbox: { type: 'boolean', description: "authorizenet: the credentials are the sandbox's (apitest.authorize.net, or AUTHORIZENET_SANDBOX_URL)" },
      production: { type: 'boolean', description: "authorizenet: the credentials are production's (api.authorize.net): real money" },
      login: { type: 'string', value: '<apiLoginId>', description: 'authorizenet: the API login id (the transaction key is read from standard input)' },
      mkey: { type: 'string', value: '<mkey>', description: "the processor's MKey, unique within the partner", default: 'generated, mk-<random>' },
      types: { type: 'string', value: '<list>', description: 'active payment method types, separated by commas; each one the adapter takes', default: "the usual ones the adapter takes (authorizenet: 1-7, simulator: 1-9)" },
      default: { type: 'boolean', description: "make it the partner's default processor", default: "the partner's first processor is the default, a later one is not" },
    },
    async run(ctx, { values, positionals }) {
      const clientId = clientIdArg(requiredPositional(positionals, 0, 'clientId', this.usage));
      const adapter = requiredString(values, 'adapter', this.usage).trim();
      const name = requiredString(values, 'name', this.usage);
      if (values.sandbox === true && values.production === true) throw new UsageError(`give one of --sandbox and --production\nusage: payments ${this.usage}`);
      const environment = values.sandbox === true ? 'sandbox' : values.production === true ? 'production' : undefined;
      let types: number[] | undefined;
      if (typeof values.types === 'string') {
        const texts = values.types.split(',').map((t) => t.trim());
        const bad = texts.find((t) => !/^\d{1,2}$/.test(t));
        if (bad !== undefined) throw new UsageError(`--types takes payment method types separated by commas, got "${bad}"\nusage: payments ${this.usage}`);
        types = texts.map(Number);
      }
      const needsKey = adapter === 'authorizenet';
      if (needsKey && !environment) throw new UsageError(`--adapter authorizenet needs --sandbox or --production\nusage: payments ${this.usage}`);
      if (needsKey && typeof values.login !== 'string') throw new UsageError(`--adapter authorizenet needs --login <apiLoginId>\nusage: payments ${this.usage}`);
      // Read before the store opens: a missing key is a usage error, and nothing is written.
      const transactionKey = needsKey ? keyFromStdin() : undefined;
      const added = await (await ctx.services()).processorAccounts.add(clientId, {
        adapter,
        name,
        mkey: typeof values.mkey === 'string' ? values.mkey : undefined,
        paymentMethodTypes: types,
        isDefault: values.default === true ? true : undefined,
        environment,
        apiLoginId: typeof values.login === 'string' ? values.login : undefined,
        transactionKey,
      });
      if (ctx.json) return ctx.out(JSON.stringify({ ProcessorGuid: added.processorId, Adapter: adapter, Environment: environment ?? null, PaymentMethodTypes: added.paymentMethodTypes }));
      ctx.out(`Processor created: ${added.processorId} (${adapter}${environment ? `, ${environment}` : ''}), payment method types ${added.paymentMethodTypes.join(',')}`);
      if (needsKey) ctx.out(`The credentials are sealed in the vault. Check them with: payments processors test ${added.processorId}`);
    },
  },
  {
    name: 'processors test',
    summary: "check a processor's credentials with its acquirer (authorizenet: authenticateTestRequest); exit 1 when refused",
    usage: 'processors test <processorGuid>',
    async run(ctx, { positionals }) {
      const id = requiredPositional(positionals, 0, 'processorGuid', this.usage);
      const result = await (await ctx.services()).processorAccounts.test(id);
      if (ctx.json) ctx.out(JSON.stringify(result));
      else ctx.out(`${result.ok ? 'OK' : 'REFUSED'}: ${result.message}`);
      return result.ok ? 0 : 1;
    },
  },
];
