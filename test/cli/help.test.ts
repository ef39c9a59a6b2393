import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMON_OPTIONS } from '../../src/cli/command.ts';
import { commands } from '../../src/cli/commands/index.ts';
import { runCli } from '../../src/cli/main.ts';
import { DEFAULT_PAYMENT_METHOD_TYPES } from '../../src/modules/partners/partner-service.ts';

/**
 * `payments <command> --help`, `payments help <command>` and a group's name alone. Help never opens
 * the store, so these run in-process; DATA_DIR points nowhere usable to prove it.
 */
let stderr: string;
const savedEnv = { DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL };

beforeEach(() => {
  stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
    stderr += String(chunk);
    return true;
  });
  process.env.DATA_DIR = '/dev/null/no-data-dir';
  delete process.env.DATABASE_URL;
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

async function cli(...argv: string[]) {
  const out: string[] = [];
  const code = await runCli(argv, (line) => out.push(line));
  return { code, stdout: out.join('\n'), stderr };
}

describe('payments <command> --help', () => {
  it('prints the command usage with its options, their placeholders and whether required, and exits 0', async () => {
    // Was: exit 2, "error: Unknown option '--help'. To specify a positional argument starting with a '-' ...".
    for (const flag of ['--help', '-h']) {
      const res = await cli('partner', 'create', flag);
      expect(res.stderr, flag).toBe('');
      expect(res.code, flag).toBe(0);
      const lines = res.stdout.split('\n');
      expect(lines[0]).toBe('usage: payments partner create --name <name> --kind non-profit|for-profit');
      expect(res.stdout).toMatch(/^ {2}--name <name> +the partner's name \(required\)$/m);
      expect(res.stdout).toMatch(/^ {2}--kind non-profit\|for-profit +.*\(required\)$/m);
      expect(res.stdout).toMatch(/^ {2}--json +print one JSON document instead of text$/m);
      expect(res.stdout).toMatch(/^ {2}-h, --help +show this help$/m);
    }
  });

  it('shows the defaults the command applies when an option is omitted', async () => {
    const processor = await cli('processor', 'create', '--help');
    expect(processor.stdout).toMatch(new RegExp(`^ {2}--types <list> +.*\\(default: ${DEFAULT_PAYMENT_METHOD_TYPES.join(',')}\\)$`, 'm'));
    expect(DEFAULT_PAYMENT_METHOD_TYPES).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(processor.stdout).toMatch(/^ {2}--mkey <mkey> +.*\(default: generated, mk-<random>\)$/m);
    const billing = await cli('billing', 'run', '-h');
    expect(billing.stdout).toMatch(/^ {2}--batch-size <n> +.*\(default: 100\)$/m);
    expect(billing.stdout).toMatch(/^ {2}--concurrency <n> +.*\(default: 8\)$/m);
    expect(billing.stdout).toMatch(/^ {2}--as-of yyyy-MM-dd +.*\(default: today, in UTC\)$/m);
    expect((await cli('pending', 'list', '--help')).stdout).toMatch(/^ {2}--older-than <minutes> +.*\(default: 15\)$/m);
    expect((await cli('settle', '--help')).stdout).toMatch(/^ {2}--as-of <date-time> +.*\(default: now\)$/m);
    expect((await cli('charities', 'import', '--help')).stdout).toMatch(/^ {2}--batch-size <rows> +.*\(default: 2000\)$/m);
    const contract = await cli('contract', 'set', '--help');
    expect(contract.stdout).toMatch(/^ {2}--per-trans <amount> +.*\(default: 0\.00\)$/m);
    expect(contract.stdout).toMatch(/^ {2}--card-type-fee BRAND=<amount> +.*\(repeatable; default: none\)$/m);
  });

  it('answers wherever --help is among the arguments, even beside a mistyped option, and never opens the store', async () => {
    for (const argv of [
      ['partner', 'create', '--name', 'X', '--help'],
      ['partner', 'create', '--nme', 'X', '-h'],
      ['contract', 'set', 'not-a-uuid', '--help', '--group', '99'],
    ]) {
      const res = await cli(...argv);
      expect(res.code, argv.join(' ')).toBe(0);
      expect(res.stderr, argv.join(' ')).toBe('');
      expect(res.stdout, argv.join(' ')).toMatch(/^usage: payments /);
    }
  });

  it('takes a --help after -- as an argument, not as a request for help', async () => {
    const res = await cli('charities', 'import', '--', '--help');
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^error: cannot read --help: no such file/);
  });

  it('prints the declaration as one JSON document with --json', async () => {
    const res = await cli('processor', 'create', '--help', '--json');
    expect(res.code).toBe(0);
    const help = JSON.parse(res.stdout);
    expect(help).toMatchObject({ name: 'processor create', usage: 'payments processor create <clientId> --name <name> [--mkey <mkey>] [--types <list>] [--default]' });
    expect(help.options).toContainEqual({ name: '--types', value: '<list>', description: expect.any(String), default: '1,2,3,4,5,6,7,8,9', required: false, repeatable: false });
    expect(help.options).toContainEqual({ name: '--name', value: '<name>', description: expect.any(String), required: true, repeatable: false });
  });
});

describe('payments help <command>', () => {
  it('prints the same as <command> --help', async () => {
    const viaHelp = await cli('help', 'contract', 'set');
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe((await cli('contract', 'set', '--help')).stdout);
    expect((await cli('--help', 'settle')).stdout).toBe((await cli('settle', '-h')).stdout);
  });

  it('refuses a command it does not know', async () => {
    const res = await cli('help', 'frobnicate');
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^error: unknown command: frobnicate\n/);
  });

  it('keeps the general list for payments --help, help and -h', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const res = await cli(flag);
      expect(res.code, flag).toBe(0);
      expect(res.stdout, flag).toMatch(/^usage: payments <command> \[options\]/);
      for (const c of commands) expect(res.stdout, flag).toContain(`  ${c.name} `);
      expect(res.stdout).toContain('payments <command> --help (or payments help <command>) shows its options and their defaults.');
    }
  });
});

describe('a group name without its command', () => {
  const partnerCommands = commands.filter((c) => c.name.startsWith('partner '));

  it('payments partner lists the partner commands (exit 2: the command is incomplete)', async () => {
    // Was: "error: unknown command: partner" and the list of every command.
    const res = await cli('partner');
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    const lines = res.stderr.split('\n');
    expect(lines[0]).toBe('error: payments partner needs a command');
    expect(lines).toContain('usage: payments partner <command> [options]');
    for (const c of partnerCommands) expect(res.stderr).toContain(`  ${c.name} `);
    expect(res.stderr).not.toContain('contract set');
  });

  it('payments help partner and payments partner --help list them on stdout with exit 0', async () => {
    for (const argv of [['help', 'partner'], ['partner', '--help'], ['partner', '-h']]) {
      const res = await cli(...argv);
      expect(res.code, argv.join(' ')).toBe(0);
      expect(res.stderr).toBe('');
      for (const c of partnerCommands) expect(res.stdout).toContain(`  ${c.name} `);
      expect(res.stdout).not.toContain('contract set');
    }
  });

  it('a command the group does not have is unknown, with the group list', async () => {
    const res = await cli('partner', 'delete');
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^error: unknown command: partner delete\n\nusage: payments partner <command>/);
  });
});

describe('the option declarations', () => {
  it('name every option the usage line shows, and the usage line names every declared option', () => {
    for (const c of commands) {
      const inUsage = new Set([...c.usage.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]!));
      const declared = new Set(Object.keys(c.options ?? {}));
      expect([...inUsage].sort(), c.name).toEqual([...declared].sort());
      for (const [name, o] of Object.entries({ ...c.options, ...COMMON_OPTIONS })) {
        expect(o.description.trim(), `${c.name} --${name}`).not.toBe('');
        // A value needs its placeholder in help; a flag has none.
        expect(o.type === 'string' ? Boolean(o.value) : o.value === undefined, `${c.name} --${name}`).toBe(true);
      }
    }
  });

  it('refuse a declared required option when it is missing, before the store opens', async () => {
    const res = await cli('gateway-user', 'create', '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a', '--username', 'someone');
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^error: --vendor is required\nusage: payments gateway-user create /);
  });
});
