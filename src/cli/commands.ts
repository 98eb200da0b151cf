import { parseArgs } from 'node:util';
import { UsageError, type CliCommand, type OptionValues } from './cli-command.js';
import { DEMO_SEED_COMMAND } from './demo-seed.js';
import { IDENTITY_COMMANDS } from './identity.command.js';
import { OAUTH_COMMANDS } from './oauth.command.js';
import { MCP_COMMANDS } from './mcp.command.js';
import { MIGRATION_COMMANDS } from './migration.command.js';

/** Every admin command of docs/platform.md §10, the migration commands behind `npm run migration:*` and the tool client. */
const COMMANDS: CliCommand[] = [...IDENTITY_COMMANDS, ...OAUTH_COMMANDS, DEMO_SEED_COMMAND, ...MIGRATION_COMMANDS, ...MCP_COMMANDS];

export function usage(): string {
  const lines = COMMANDS.map((c) => `  ${[...c.path, ...(c.positionals ?? []).map((p) => `<${p}>`), c.synopsis].filter(Boolean).join(' ')}`);
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
  const names = command.positionals ?? [];
  let values: OptionValues;
  try {
    const parsed = parseArgs({ args: argv.slice(command.path.length), options: command.options, strict: true, allowPositionals: names.length > 0 });
    values = parsed.values;
    if (parsed.positionals.length > names.length) throw new UsageError(`Unexpected argument '${parsed.positionals[names.length]}' for "${command.path.join(' ')}"`);
    names.forEach((name, i) => (values[name] = parsed.positionals[i]));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const absent = names.filter((name) => values[name] === undefined);
  if (absent.length) throw new UsageError(`Missing ${absent.map((a) => `<${a}>`).join(' ')} for "${command.path.join(' ')}"`);
  const missing = (command.required ?? []).filter((name) => values[name] === undefined);
  if (missing.length) throw new UsageError(`Missing option${missing.length > 1 ? 's' : ''} ${missing.map((m) => `--${m}`).join(', ')} for "${command.path.join(' ')}"`);
  return { command, values };
}

