import { Writable } from 'node:stream';
import { loadConfig, type AppConfig } from '../../src/config/config.js';
import { startService, type RunningService } from '../../src/bootstrap.js';
import { createLogger } from '../../src/shared/logging/logger.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface TestApp {
  url: string;
  service: RunningService;
  db: TestDatabase;
  config: AppConfig;
  /** Every log line the app wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  get<T>(token: abstract new (...args: never[]) => T): T;
  close(): Promise<void>;
}

/** The whole service on a random port against its own fresh database. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: db.url, ...env });
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  const service = await startService(config, logger, { database: { dataSource: db.dataSource, embedded: null, close: async () => undefined } });
  return {
    url: service.url,
    service,
    db,
    config,
    logs,
    get: <T>(token: abstract new (...args: never[]) => T): T => service.app.get(token as never, { strict: false }) as T,
    close: async () => {
      await service.stop();
      await db.drop();
    },
  };
}
