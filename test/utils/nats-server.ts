import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import { portAccepts } from './ports.js';

export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/** A client connection as the server's monitoring endpoint (`/connz?subs=detail`) lists it. */
export interface NatsConnectionInfo {
  name?: string;
  subscriptions_list_detail?: Array<{ subject: string; qgroup?: string }>;
}

/**
 * A real nats-server of the test's own on a free port, which the test may stop and start again. `reserve()` picks
 * the port without starting it (a server that is down from the beginning); `monitor` adds the HTTP monitoring port.
 */
export class TestNatsServer {
  private proc: ChildProcess | null = null;
  /** More command-line arguments (cluster options: see nats-cluster.ts). */
  extraArgs: string[] = [];
  private constructor(
    readonly port: number,
    readonly monitorPort: number | null,
  ) {}

  static async start(opts: { monitor?: boolean } = {}): Promise<TestNatsServer> {
    const s = await TestNatsServer.reserve(opts);
    await s.start();
    return s;
  }

  /** `port`/`monitorPort` given: those (nats-cluster.ts picks ports outside the ephemeral range). */
  static async reserve(opts: { monitor?: boolean; port?: number; monitorPort?: number } = {}): Promise<TestNatsServer> {
    return new TestNatsServer(opts.port ?? (await freePort()), opts.monitor ? (opts.monitorPort ?? (await freePort())) : null);
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ['-a', '127.0.0.1', '-p', String(this.port)];
    if (this.monitorPort) args.push('-m', String(this.monitorPort));
    args.push(...this.extraArgs);
    const proc = spawn(NATS_SERVER_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.proc = proc;
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    for (let i = 0; i < 100; i++) {
      if (proc.exitCode !== null) break;
      if ((await portAccepts(this.port)) && (!this.monitorPort || (await portAccepts(this.monitorPort)))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nats-server did not start on ${this.port}: ${err}`);
  }

  /** The client connections the server holds now, or also the recently closed ones (`all`); needs `monitor`. */
  async connections(state: 'open' | 'all' = 'open'): Promise<NatsConnectionInfo[]> {
    if (!this.monitorPort) throw new Error('started without monitor');
    const res = await fetch(`http://127.0.0.1:${this.monitorPort}/connz?subs=detail&state=${state}`);
    return ((await res.json()) as { connections?: NatsConnectionInfo[] }).connections ?? [];
  }

  get running(): boolean {
    return this.proc !== null && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Number of cluster routes the server has now (`/routez`); needs `monitor`. */
  async routeCount(): Promise<number> {
    if (!this.monitorPort) throw new Error('started without monitor');
    const res = await fetch(`http://127.0.0.1:${this.monitorPort}/routez`);
    return ((await res.json()) as { num_routes?: number }).num_routes ?? 0;
  }

  async stop(): Promise<void> {
    const p = this.proc;
    this.proc = null;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    });
  }
}
