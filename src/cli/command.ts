import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { Services } from '../composition.ts';
import { GUID } from '../platform/ids.ts';

export class UsageError extends Error {}

export interface CliContext {
  /** Opens the store on first use (and locks the embedded data directory). */
  services(): Promise<Services>;
  out(line?: string): void;
  /** --json was given: print one JSON document instead of text. */
  json: boolean;
  /** Ends a command that runs until told (notifications deliver --follow) besides SIGTERM and SIGINT: a caller's own stop (tests). */
  stop: AbortSignal;
}

/**
 * One option of a command, declared once: parsing, the required check and `--help` all read it
 * (an operator audit found no per-command help, and defaults written only in the code).
 */
export interface CommandOption {
  type: 'string' | 'boolean';
  /** Repeatable: every value is kept, in order. */
  multiple?: boolean;
  /** The value as help shows it after the flag: `<name>`, `yyyy-MM-dd`, `non-profit|for-profit`. */
  value?: string;
  description: string;
  /** What applies when the option is not given, in the operator's words (help shows it). */
  default?: string;
  /** Refused when missing or blank, before the command runs. */
  required?: boolean;
}

/** Options every command takes (parsed with its own; `--help` never reaches the parser). */
export const COMMON_OPTIONS: Record<string, CommandOption> = {
  json: { type: 'boolean', description: 'print one JSON document instead of text' },
};

export interface Command {
  /** Words that name the command: `partner create`. */
  name: string;
  summary: string;
  /** The synopsis: positionals, and how the options combine (help lists each option from `options`). */
  usage: string;
  options?: Record<string, CommandOption>;
  /** An exit code other than 0 without an error (a listing that found something to act on), or nothing. */
  run(ctx: CliContext, args: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] }): Promise<void | number>;
}

/**
 * `--help` or `-h` anywhere before a `--` (after it every word is a positional, a file named
 * `--help` included). Looked for before parsing, so that help works beside a mistyped option.
 */
export function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** --json before any `--`, for the answers given without parsing (help). */
export function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

export function parseCommandArgs(command: Command, argv: string[]) {
  // No database text can hold NUL (and no shell can pass one): refuse it before it reaches a query.
  if (argv.some((a) => a.includes('\u0000'))) throw new UsageError(`arguments cannot contain NUL characters\nusage: payments ${command.usage}`);
  const declared = { ...command.options, ...COMMON_OPTIONS };
  const options: ParseArgsOptionsConfig = {};
  for (const [name, o] of Object.entries(declared)) options[name] = o.multiple ? { type: o.type, multiple: true } : { type: o.type };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: payments ${command.usage}`);
  }
  // An argument the command does not take was silently ignored (an operator audit found it).
  const max = maxPositionals(command.usage);
  if (parsed.positionals.length > max) throw new UsageError(`unexpected argument "${parsed.positionals[max]}"\nusage: payments ${command.usage}`);
  for (const [name, o] of Object.entries(declared)) if (o.required) requiredString(parsed.values, name, command.usage);
  return parsed;
}

/**
 * How many positional arguments a usage line names: its `<...>` that are not an option's value
 * (`--name <name>`, `BRAND=<amount>`); one ending in `...` takes any number.
 */
export function maxPositionals(usage: string): number {
  let count = 0;
  for (const m of usage.matchAll(/<[^>]+>(\.\.\.)?/g)) {
    const before = usage.slice(0, m.index).trimEnd();
    const previous = before.split(/\s+/).pop() ?? '';
    if (/^\[?--/.test(previous) || before.endsWith('=')) continue;
    if (m[1]) return Infinity;
    count++;
  }
  return count;
}

export function requiredString(values: Record<string, unknown>, name: string, usage: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required\nusage: payments ${usage}`);
  return v;
}


/** A ClientId argument: refused here when it is not a UUID (the database would reject it as a failed query). */
export function clientIdArg(text: string): string {
  if (!GUID.test(text)) throw new UsageError(`"${text}" is not a ClientId (a UUID)`);
  return text;
}

export function requiredPositional(positionals: string[], index: number, what: string, usage: string): string {
  const v = positionals[index];
  if (!v) throw new UsageError(`${what} is required\nusage: payments ${usage}`);
  return v;
}
