import { ConfigError, loadConfig } from './config/config.js';
import { createLogger, logFormatOf } from './shared/logging/logger.js';
import { startService } from './bootstrap.js';
import { StartupError } from './shared/errors/startup-error.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      // One line: JSON for a collector, the message alone for a person at a terminal.
      if (logFormatOf('auto', process.stderr.isTTY === true) === 'pretty') process.stderr.write(`${err.message}\n`);
      else process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: 'fatal', msg: err.message, variable: err.variable }) + '\n');
      process.exit(1);
    }
    throw err;
  }
  const format = logFormatOf(config.logFormat);
  const logger = createLogger(config.logLevel, undefined, format);
  let service;
  try {
    service = await startService(config, logger);
  } catch (err) {
    // One line naming the cause and the fix where we know them (StartupError), else the error itself.
    // A StartupError's message already names the fix. At a terminal fields would go on lines of their own, so the
    // message is the one line there.
    if (err instanceof StartupError) {
      if (format === 'pretty') logger.fatal(err.message);
      else logger.fatal({ fix: err.fix }, err.message);
    } else if (format === 'pretty') logger.fatal(`start-up failed: ${err instanceof Error ? err.message : String(err)}`);
    else logger.fatal({ err: err instanceof Error ? err.message : String(err) }, 'start-up failed');
    logger.flush();
    setTimeout(() => process.exit(1), 100);
    return;
  }
  const shutdown = (signal: string): void => {
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown grace period exceeded; exiting');
      logger.flush();
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    service
      .stop()
      .then(() => {
        logger.info('stopped');
        logger.flush();
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err: String(err) }, 'shutdown failed');
        logger.flush();
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

void main();
