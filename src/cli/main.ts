/**
 * Admin CLI (docs/platform.md §10). Success: one JSON object on stdout, exit 0. Failure: `{"error":{code,message}}` on
 * stderr, exit 1. Usage error: a message and the usage text on stderr, exit 2.
 */
import 'reflect-metadata';
import { ConfigError, loadConfig } from '../config/config.js';
import { AppError, isDatabaseUnavailable } from '../shared/errors/app-error.js';
import { createLogger } from '../shared/logging/logger.js';
import { ReportedError, UsageError, type CliCommand, type OptionValues } from './cli-command.js';
import { parseCommand, usage } from './commands.js';

/** The CLI's maintenance commands (migrations, seeding, key rotation) may run longer than a request's statements. */
const MAINTENANCE_STATEMENT_TIMEOUT_MS = 60_000;

async function execute(command: CliCommand, values: OptionValues): Promise<object> {
  // The tool client talks to a running service over HTTP: no configuration, no database.
  if (command.database === false) return command.run(values);
  const config = loadConfig();
  // stdout carries the result only; database logs go to stderr and only when asked for with a verbose LOG_LEVEL.
  const verbose = config.logLevel === 'debug' || config.logLevel === 'trace';
  const logger = createLogger(verbose ? config.logLevel : 'silent', process.stderr);
  // Loaded here so the tool client does not pay for the database layer. Attaches to the embedded server of a
  // running service, or starts one for this command and stops it after.
  const { openDatabase } = await import('../database.js');
  const database = await openDatabase(config, logger, { migrate: command.migrate !== false, poolSize: 2, statementTimeoutMs: MAINTENANCE_STATEMENT_TIMEOUT_MS });
  try {
    return await command.run({ dataSource: database.dataSource }, values);
  } finally {
    await database.close();
  }
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help')) {
    await write(process.stdout, usage());
    return 0;
  }
  let parsed: { command: CliCommand; values: OptionValues };
  try {
    parsed = parseCommand(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    await write(process.stderr, `${err.message}\n\n${usage()}`);
    return 2;
  }
  try {
    const result = await execute(parsed.command, parsed.values);
    await write(process.stdout, JSON.stringify(result, null, 2) + '\n');
    return 0;
  } catch (err) {
    // Option values a command can only judge itself (e.g. malformed --args JSON) are usage errors too.
    if (err instanceof UsageError) {
      await write(process.stderr, `${err.message}\n\n${usage()}`);
      return 2;
    }
    await write(process.stderr, JSON.stringify({ error: describe(err) }) + '\n');
    return 1;
  }
}

function describe(err: unknown): Record<string, unknown> {
  if (err instanceof ReportedError) return err.error;
  if (err instanceof AppError) return { code: err.code, message: err.message };
  if (err instanceof ConfigError) return { code: 'CONFIG_ERROR', message: err.message };
  if (isDatabaseUnavailable(err)) return { code: 'SERVICE_UNAVAILABLE', message: `Database unavailable: ${err instanceof Error ? err.message : String(err)}` };
  // The operator runs this on their own machine: the cause is more useful than a generic message.
  return { code: 'INTERNAL_ERROR', message: err instanceof Error ? err.message : String(err) };
}

// Interrupted: exit through process.exit, so an embedded server this command started is stopped on the way out.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) process.once(signal, () => process.exit(code));

// Explicit exit: a lingering handle (pool timer, embedded server pipes) must not keep the command alive.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(JSON.stringify({ error: describe(err) }) + '\n');
    process.exit(1);
  },
);
