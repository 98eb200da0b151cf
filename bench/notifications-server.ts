/**
 * The service under benchmark, in its own process so the load generator never shares its event loop. Started by
 * bench/notifications.ts with DATABASE_URL; reports its URL over IPC and stops on "stop".
 */
import { loadConfig } from '../src/config/config.js';
import { startService } from '../src/bootstrap.js';
import { createLogger } from '../src/shared/logging/logger.js';

const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' });
const service = await startService(config, createLogger(config.logLevel));
process.send?.({ url: service.url });
process.on('message', (msg) => {
  if (msg === 'stop') void service.stop().then(() => process.exit(0));
});
