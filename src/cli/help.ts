import { COMMON_OPTIONS, type Command, type CommandOption } from './command.ts';

/** The general list: every command with its summary. */
export function generalHelp(commands: Command[]): string {
  return [
    'usage: payments <command> [options]   (add --json for machine-readable output)',
    '',
    ...listing(commands),
    '',
    'payments <command> --help (or payments help <command>) shows its options and their defaults.',
    'The database is the one the server uses: DATABASE_URL, or the embedded one in DATA_DIR',
    '(which only one process may open at a time).',
  ].join('\n');
}

/** The commands whose first word is `group` (`partner` -> partner create, partner list, ...). */
export function groupCommands(commands: Command[], group: string): Command[] {
  return commands.filter((c) => c.name.startsWith(`${group} `));
}

export function groupHelp(group: string, members: Command[], json: boolean): string {
  if (json) return JSON.stringify({ group, commands: members.map((c) => ({ name: c.name, summary: c.summary, usage: `payments ${c.usage}` })) });
  return [
    `usage: payments ${group} <command> [options]`,
    '',
    ...listing(members),
    '',
    `payments ${group} <command> --help shows its options and their defaults.`,
  ].join('\n');
}

/** One command: its usage line, what it does, and each option with its default. */
export function commandHelp(command: Command, json: boolean): string {
  const options = Object.entries({ ...command.options, ...COMMON_OPTIONS });
  if (json) {
    return JSON.stringify({
      name: command.name,
      summary: command.summary,
      usage: `payments ${command.usage}`,
      options: options.map(([name, o]) => ({
        name: `--${name}`,
        ...(o.value ? { value: o.value } : {}),
        description: o.description,
        ...(o.default !== undefined ? { default: o.default } : {}),
        required: o.required === true,
        repeatable: o.multiple === true,
      })),
    });
  }
  const rows: [string, string][] = options.map(([name, o]) => [`--${name}${o.value ? ` ${o.value}` : ''}`, describe(o)]);
  rows.push(['-h, --help', 'show this help']);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [`usage: payments ${command.usage}`, '', command.summary, '', 'options:', ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`)].join('\n');
}

function describe(o: CommandOption): string {
  const notes = [o.required ? 'required' : '', o.multiple ? 'repeatable' : '', o.default !== undefined ? `default: ${o.default}` : ''].filter(Boolean);
  return notes.length ? `${o.description} (${notes.join('; ')})` : o.description;
}

function listing(commands: Command[]): string[] {
  const width = Math.max(...commands.map((c) => c.name.length));
  return commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
}
