import { createServer } from 'node:net';
import { TestNatsServer } from './nats-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const taken = new Set<number>();

/**
 * A free port below the ephemeral range (32768+ on Linux): a cluster's ports are reserved before its nodes start,
 * and an ephemeral port may meanwhile become the local end of some outgoing connection (a node once did not start on
 * its reserved port; this is the likely cause, not a proven one).
 */
async function quietPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}

/**
 * A real nats-server cluster of the test's own: `size` nodes on 127.0.0.1, each with its own client, cluster and
 * monitoring port, routes to all the others, one cluster name. Nodes are started (and killed) one by one; `start()`
 * starts those given (all by default) and waits until each running node has a route to every other running one.
 */
export class TestNatsCluster {
  private constructor(
    readonly nodes: TestNatsServer[],
    readonly clusterPorts: number[],
    readonly name: string,
  ) {}

  static async reserve(size = 3): Promise<TestNatsCluster> {
    const nodes: TestNatsServer[] = [];
    const clusterPorts: number[] = [];
    for (let i = 0; i < size; i++) {
      nodes.push(await TestNatsServer.reserve({ monitor: true, port: await quietPort(), monitorPort: await quietPort() }));
      clusterPorts.push(await quietPort());
    }
    const name = `tc${process.pid}`;
    nodes.forEach((node, i) => {
      const routes = clusterPorts.filter((_, j) => j !== i).map((p) => `nats://127.0.0.1:${p}`);
      node.extraArgs = ['-n', `n${i + 1}`, '--cluster_name', name, '--cluster', `nats://127.0.0.1:${clusterPorts[i]}`, '--routes', routes.join(',')];
    });
    return new TestNatsCluster(nodes, clusterPorts, name);
  }

  /** `nats://…` of the nodes in the given order (1-based node numbers), comma-separated, as NATS_URL takes them. */
  urls(order: number[]): string {
    return order.map((i) => this.nodes[i - 1].url).join(',');
  }

  async start(which: number[] = this.nodes.map((_, i) => i + 1)): Promise<void> {
    for (const i of which) await this.nodes[i - 1].start();
    await this.waitForRoutes();
  }

  /** Until every running node routes to every other running node (`/routez`). */
  async waitForRoutes(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const running = this.nodes.filter((n) => n.running);
      const counts = await Promise.all(running.map((n) => n.routeCount().catch(() => -1)));
      if (counts.every((c) => c >= running.length - 1)) return;
      if (Date.now() > deadline) throw new Error(`cluster routes did not form: ${counts.join(',')}`);
      await sleep(50);
    }
  }

  /** 1-based number of each node that holds an open client connection of that name, by connection name. */
  async whereIs(names: string[]): Promise<Record<string, number[]>> {
    const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    await Promise.all(
      this.nodes.map(async (node, i) => {
        if (!node.running) return;
        const conns = await node.connections().catch(() => []);
        for (const c of conns) if (c.name && c.name in out) out[c.name].push(i + 1);
      }),
    );
    for (const k of names) out[k].sort();
    return out;
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
  }
}
