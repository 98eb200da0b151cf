import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, placeCluster, removeEmbeddedData } from '../../src/shared/database/embedded-postgres.js';
import { PostgresCluster, serverUser } from '../../src/shared/database/postgres-cluster.js';
import { portAccepts } from './ports.js';

const USER = 'svc';
const DATABASE = 'svc';

/**
 * A private PostgreSQL server of the test's own (the service's embedded launcher) in a temp directory, on a fixed
 * free port, which the test may stop (fast shutdown: sessions are terminated, open transactions roll back) and start
 * again on the same port. Never the machine's server.
 */
export class TestPgServer {
  private running = false;
  private frozen: number[] = [];

  private constructor(
    private readonly cluster: PostgresCluster,
    private readonly dir: string,
    readonly port: number,
    private readonly password: string,
  ) {}

  static async start(): Promise<TestPgServer> {
    const dir = await mkdtemp(join(tmpdir(), 'svc-faults-pg-'));
    const port = await freePort();
    const password = randomBytes(12).toString('hex');
    const cluster = await PostgresCluster.open({
      dir: await placeCluster(dir, serverUser()),
      user: USER,
      password,
      // fsync off: the test never crashes the machine, and the server starts and stops faster.
      settings: { fsync: 'off' },
    });
    await cluster.initialise();
    const server = new TestPgServer(cluster, dir, port, password);
    await server.start();
    const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
    await client.connect();
    await client.query(`CREATE DATABASE ${DATABASE}`);
    await client.end();
    return server;
  }

  get url(): string {
    return `postgres://${USER}:${this.password}@127.0.0.1:${this.port}/${DATABASE}`;
  }

  /** The postmaster's pid while it runs. */
  get pid(): number | undefined {
    return this.cluster.pid;
  }

  /** Starts the server again on the same port and data (resolves once it accepts connections). */
  async start(): Promise<void> {
    await this.cluster.start(this.port);
    this.running = true;
    for (let i = 0; i < 200 && !(await portAccepts(this.port)); i++) await new Promise((r) => setTimeout(r, 50));
  }

  /** Fast shutdown; resolves once the server process has exited and the port is closed. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await this.cluster.stop();
    for (let i = 0; i < 200 && (await portAccepts(this.port)); i++) await new Promise((r) => setTimeout(r, 50));
  }

  /**
   * Freezes the server as a stalled disk or a partition does: SIGSTOP to the postmaster and every backend (the kernel
   * still completes TCP handshakes, nothing answers). `thaw()` resumes them all.
   */
  freeze(): number[] {
    const pids = this.processes();
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    this.frozen = pids;
    return pids;
  }

  thaw(): void {
    // Children first would let a backend run while its postmaster is stopped for a moment: resume the postmaster first.
    for (const pid of this.frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone
      }
    }
    this.frozen = [];
  }

  /** The postmaster and its descendants (from /proc). */
  private processes(): number[] {
    const root = this.pid;
    if (!root) return [];
    const parents = new Map<number, number>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // pid (comm) state ppid …; comm may hold spaces and parentheses: read after the last ')'.
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        parents.set(Number(entry), ppid);
      } catch {
        // exited meanwhile
      }
    }
    const out = [root];
    for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parents) if (ppid === out[i]) out.push(pid);
    return out;
  }

  async destroy(): Promise<void> {
    this.thaw();
    await this.stop().catch(() => undefined);
    await removeEmbeddedData(this.dir);
  }
}
