import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import { portAccepts } from './ports.js';

export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/** A real nats-server of the test's own on a free port, which the test may stop and start again. */
export class TestNatsServer {
  private proc: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  static async start(): Promise<TestNatsServer> {
    const s = new TestNatsServer(await freePort());
    await s.start();
    return s;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.proc = spawn(NATS_SERVER_BIN, ['-a', '127.0.0.1', '-p', String(this.port)], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if (await portAccepts(this.port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nats-server did not start on ${this.port}`);
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
