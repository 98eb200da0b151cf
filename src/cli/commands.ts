import { parseArgs } from 'node:util';
import { UsageError, type CliCommand, type OptionValues } from './cli-command.js';
import { DEMO_SEED_COMMAND } from './demo-seed.js';
import { IDENTITY_COMMANDS } from './identity.command.js';
import { MIGRATION_COMMANDS } from './migration.command.js';

/** Every admin command of platform.md §10, plus the migration commands behind `npm run migration:*`. */
const COMMANDS: CliCommand[] = [...IDENTITY_COMMANDS, DEMO_SEED_COMMAND, ...MIGRATION_COMMANDS];

export function usage(): string {
  const lines = COMMANDS.map((c) => `  ${[...c.path, c.synopsis].filter(Boolean).join(' ')}`);
  return `Usage: npm run cli -- <command> [options]\n\nCommands:\n${lines.join('\n')}\n`;
}

/** The longest command path that prefixes argv, and the option values after it. */
export function parseCommand(argv: string[]): { command: CliCommand; values: OptionValues } {
  const command = COMMANDS.filter((c) => c.path.every((word, i) => argv[i] === word)).sort((a, b) => b.path.length - a.path.length)[0];
  if (!command) {
    const first = argv.findIndex((a) => a.startsWith('-'));
    const words = (first < 0 ? argv : argv.slice(0, first)).join(' ');
    throw new UsageError(words ? `Unknown command: ${words}` : 'No command given');
  }
  let values: OptionValues;
  try {
    values = parseArgs({ args: argv.slice(command.path.length), options: command.options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const missing = (command.required ?? []).filter((name) => values[name] === undefined);
  if (missing.length) throw new UsageError(`Missing option${missing.length > 1 ? 's' : ''} ${missing.map((m) => `--${m}`).join(', ')} for "${command.path.join(' ')}"`);
  return { command, values };
}

