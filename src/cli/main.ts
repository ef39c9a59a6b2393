import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';
import pino from 'pino';
import { createLogger } from '../platform/logging.ts';
import { otherDatabase } from '../platform/data-dir-database.ts';
import { openServices, type Services } from '../composition.ts';
import { NotFoundError, OperatorInputError, ValidationError } from '../platform/errors.ts';
import { type DataDirLock, DataDirLockedError, lockDataDir } from '../platform/data-dir-lock.ts';
import { type CliContext, type Command, UsageError, parseCommandArgs, wantsHelp, wantsJson } from './command.ts';
import { commands } from './commands/index.ts';
import { commandHelp, generalHelp, groupCommands, groupHelp } from './help.ts';

function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  for (const words of [2, 1, 3]) {
    const name = argv.slice(0, words).join(' ');
    const command = commands.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  return undefined;
}

/**
 * An unexpected error in one line. A failed query (drizzle's DrizzleQueryError: "Failed query: <sql>\nparams: ...")
 * is reported by its cause: its SQL and parameters may hold hashes or other values never to be printed.
 */
function unexpectedMessage(e: unknown): string {
  const error = e instanceof Error ? e : new Error(String(e));
  const shown = error.message.startsWith('Failed query:') && error.cause instanceof Error ? error.cause : error;
  return shown.message.split('\n')[0]!.trim() || shown.name;
}

/**
 * Help asked for with `payments help <words>` (or `--help <words>`): a command's, a group's, or
 * the general list. Words it does not know are an error, as they would be without `help`.
 */
function helpFor(words: string[], out: (line: string) => void, err: (line: string) => void): number {
  const json = wantsJson(words);
  const named = words.filter((w) => w !== '--json');
  if (named.length === 0) {
    out(generalHelp(commands));
    return 0;
  }
  const found = findCommand(named);
  if (found) {
    out(commandHelp(found.command, json));
    return 0;
  }
  const members = groupCommands(commands, named[0]!);
  if (members.length > 0) {
    out(groupHelp(named[0]!, members, json));
    return 0;
  }
  err(`error: unknown command: ${named.slice(0, 2).join(' ')}\n\n${generalHelp(commands)}`);
  return 2;
}

export async function runCli(
  argv: string[],
  out: (line: string) => void = (l) => process.stdout.write(l + '\n'),
  stop: AbortSignal = new AbortController().signal,
): Promise<number> {
  const err = (line: string) => process.stderr.write(line + '\n');
  if (argv.length === 0) {
    out(generalHelp(commands));
    return 2;
  }
  if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') return helpFor(argv.slice(1), out, err);
  const found = findCommand(argv);
  if (found && wantsHelp(found.rest)) {
    // Before parsing and before the store opens: help answers even beside a mistyped option.
    out(commandHelp(found.command, wantsJson(found.rest)));
    return 0;
  }
  if (!found) {
    // A group's name (`payments partner`): its commands, not the whole list.
    const members = groupCommands(commands, argv[0]!);
    if (members.length > 0 && wantsHelp(argv.slice(1))) {
      out(groupHelp(argv[0]!, members, wantsJson(argv.slice(1))));
      return 0;
    }
    if (members.length > 0) {
      // Incomplete (no subcommand) or a subcommand it does not have: a usage error, exit 2.
      const problem = argv.length === 1 || argv[1]!.startsWith('-') ? `payments ${argv[0]} needs a command` : `unknown command: ${argv.slice(0, 2).join(' ')}`;
      err(`error: ${problem}\n\n${groupHelp(argv[0]!, members, false)}`);
      return 2;
    }
    err(`error: unknown command: ${argv.slice(0, 2).join(' ')}\n\n${generalHelp(commands)}`);
    return 2;
  }
  let lock: DataDirLock | undefined;
  let services: (Services & { close(): Promise<void> }) | undefined;
  try {
    const args = parseCommandArgs(found.command, found.rest);
    const config = loadConfig();
    const ctx: CliContext = {
      json: args.values.json === true,
      out: (line = '') => out(line),
      stop,
      async services() {
        if (services) return services;
        const other = otherDatabase(config.dataDir, config.databaseUrl);
        if (other) throw new OperatorInputError(other);
        if (!config.databaseUrl) {
          lock = lockDataDir(config.dataDir, `cli: ${found.command.name}`);
          // A mistyped or missing DATA_DIR would otherwise answer from a new, empty database as if
          // it were the real one ("No partners."): say so.
          const database = join(config.dataDir, 'pglite');
          if (!existsSync(database)) err(`note: no database in ${resolve(config.dataDir)} yet: a new one is created there (set DATA_DIR to use another)`);
        }
        // Per-item problems go to stderr as log lines (warnings and worse unless LOG_LEVEL says more); results to stdout.
        const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, pino.destination(2));
        services = await openServices(config, log);
        return services;
      },
    };
    const code = await found.command.run(ctx, args as never);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    if (e instanceof UsageError || e instanceof OperatorInputError || e instanceof ConfigError || e instanceof DataDirLockedError) {
      err(`error: ${e.message}`);
      return 2;
    }
    if (e instanceof NotFoundError || e instanceof ValidationError) {
      err(`error: ${e.message}`);
      return 1;
    }
    err(`error: ${unexpectedMessage(e)}`);
    return 1;
  } finally {
    await services?.close();
    lock?.release();
  }
}

if (import.meta.main) {
  runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
