import { readFileSync } from 'node:fs';
import { type Command, type CommandOption, UsageError, clientIdArg, requiredPositional, requiredString } from '../command.ts';

const PASSWORD_STDIN: CommandOption = {
  type: 'boolean',
  description: 'read the password from the first line of standard input',
  default: 'a generated password, printed once',
};

/** A password from stdin (one line), so it never shows in the process list or shell history. */
function passwordFromStdin(): string {
  const text = readFileSync(0, 'utf8');
  const line = text.split(/\r?\n/)[0] ?? '';
  if (!line) throw new UsageError('--password-stdin: no password on standard input');
  return line;
}

export const gatewayUserCommands: Command[] = [
  {
    name: 'gateway-user create',
    summary: "create a SOAP gateway user for a partner; prints the password once (generated unless --password-stdin)",
    usage: 'gateway-user create <clientId> --username <name> --vendor <vendor> [--password-stdin]',
    options: {
      username: { type: 'string', value: '<name>', description: 'the login name: 3 to 64 letters, digits, ".", "_", "@" or "-"', required: true },
      vendor: { type: 'string', value: '<vendor>', description: 'the vendor name the client logs in with: 1 to 50 letters, digits, "." or "_"', required: true },
      'password-stdin': PASSWORD_STDIN,
    },
    async run(ctx, { values, positionals }) {
      const clientId = clientIdArg(requiredPositional(positionals, 0, 'clientId', this.usage));
      const username = requiredString(values, 'username', this.usage);
      const vendor = requiredString(values, 'vendor', this.usage);
      const given = values['password-stdin'] === true ? passwordFromStdin() : undefined;
      const user = await (await ctx.services()).gatewayUsers.create({ partnerId: clientId, username, vendor, password: given });
      if (ctx.json) {
        return ctx.out(JSON.stringify({ Username: user.username, Vendor: user.vendor, ClientId: user.partnerId, ...(given ? {} : { Password: user.password }) }));
      }
      ctx.out(`Gateway user "${user.username}" (vendor ${user.vendor}) created for ${user.partnerName}.`);
      if (!given) ctx.out(`Password (shown this once only): ${user.password}`);
    },
  },
  {
    name: 'gateway-user list',
    summary: 'list SOAP gateway users (of one partner, or all)',
    usage: 'gateway-user list [<clientId>]',
    async run(ctx, { positionals }) {
      const clientId = positionals[0] === undefined ? undefined : clientIdArg(positionals[0]);
      const users = await (await ctx.services()).gatewayUsers.list(clientId);
      if (ctx.json) return ctx.out(JSON.stringify(users));
      if (users.length === 0) return ctx.out('No gateway users.');
      for (const u of users) ctx.out(`${u.username.padEnd(24)}  ${u.status.padEnd(8)}  vendor ${u.vendor.padEnd(16)}  ${u.partnerName} (${u.partnerId})`);
    },
  },
  {
    name: 'gateway-user disable',
    summary: "disable a gateway user; its ClientSessionIDs stop working",
    usage: 'gateway-user disable <username>',
    async run(ctx, { positionals }) {
      const user = await (await ctx.services()).gatewayUsers.setStatus(requiredPositional(positionals, 0, 'username', this.usage), 'disabled');
      if (ctx.json) return ctx.out(JSON.stringify({ Username: user.username, status: user.status }));
      ctx.out(`Gateway user "${user.username}" disabled; its sessions have ended (running servers stop accepting them within 30 s).`);
    },
  },
  {
    name: 'gateway-user enable',
    summary: 'enable a disabled gateway user',
    usage: 'gateway-user enable <username>',
    async run(ctx, { positionals }) {
      const user = await (await ctx.services()).gatewayUsers.setStatus(requiredPositional(positionals, 0, 'username', this.usage), 'active');
      if (ctx.json) return ctx.out(JSON.stringify({ Username: user.username, status: user.status }));
      ctx.out(`Gateway user "${user.username}" enabled.`);
    },
  },
  {
    name: 'gateway-user reset-password',
    summary: "give a gateway user a new password (generated unless --password-stdin); its sessions end",
    usage: 'gateway-user reset-password <username> [--password-stdin]',
    options: { 'password-stdin': PASSWORD_STDIN },
    async run(ctx, { values, positionals }) {
      const username = requiredPositional(positionals, 0, 'username', this.usage);
      const given = values['password-stdin'] === true ? passwordFromStdin() : undefined;
      const password = await (await ctx.services()).gatewayUsers.resetPassword(username, given);
      if (ctx.json) return ctx.out(JSON.stringify({ Username: username, ...(given ? {} : { Password: password }) }));
      ctx.out(given ? `Password of "${username}" changed.` : `New password of "${username}" (shown this once only): ${password}`);
    },
  },
];
