import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startService } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config/config.js';
import { IdentityAdminService } from '../../src/modules/identity/index.js';
import { findRunningEmbedded, removeEmbeddedData } from '../../src/shared/database/embedded-postgres.js';

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * docs/platform.md §1: without DATABASE_URL the service initialises an embedded PostgreSQL under DATA_DIR on first run,
 * reuses it afterwards, and stops it on shutdown.
 */
describe('embedded PostgreSQL start-up (integration)', () => {
  let dataDir: string;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    // mkdtemp gives a 0700 directory: start-up must cope with it (as root the server runs as another user).
    dataDir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
  });
  afterAll(() => removeEmbeddedData(dataDir));

  const config = () => loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir });
  const embeddedPort = async (): Promise<number> => JSON.parse(await readFile(join(dataDir, 'embedded.json'), 'utf8')).port;

  it('initialises, serves, stops cleanly, and starts again on the same data', async () => {
    const first = await startService(config(), logger);
    let companyUuid: string;
    let credentials: string;
    let port: number;
    try {
      expect(first.database.embedded).not.toBeNull();
      const ready = await fetch(`${first.url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'up', bus: 'disabled' } });
      port = await embeddedPort();
      expect(await findRunningEmbedded(dataDir)).toContain(`127.0.0.1:${port}/`);
      credentials = await readFile(join(dataDir, 'credentials.json'), 'utf8');
      expect((await stat(join(dataDir, 'credentials.json'))).mode & 0o077).toBe(0);
      companyUuid = (await first.app.get(IdentityAdminService, { strict: false }).createCompany('Survivor')).uuid;
    } finally {
      await first.stop();
    }
    // Stopped: no server on its port, nothing advertised for the CLI.
    expect(await portOpen(port)).toBe(false);
    expect(await findRunningEmbedded(dataDir)).toBeNull();
    await expect(stat(join(dataDir, 'embedded.json'))).rejects.toThrow();
    expect((await fetch(`${first.url}/health/live`).then(() => 'up', () => 'down'))).toBe('down');

    const second = await startService(config(), logger);
    let secondPort: number;
    try {
      expect((await fetch(`${second.url}/health/ready`)).status).toBe(200);
      // The same cluster, not a fresh one: same credentials, and the data survived.
      expect(await readFile(join(dataDir, 'credentials.json'), 'utf8')).toBe(credentials);
      const rows = await second.database.dataSource.query(`SELECT name FROM company WHERE uuid = $1`, [companyUuid]);
      expect(rows).toEqual([{ name: 'Survivor' }]);
      secondPort = await embeddedPort();
    } finally {
      await second.stop();
    }
    expect(await portOpen(secondPort)).toBe(false);
    expect(await findRunningEmbedded(dataDir)).toBeNull();
  }, 120_000);
});
