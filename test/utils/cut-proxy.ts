import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP pass-through to one backend whose connections a test can cut at random (both sockets destroyed), for
 * clients whose own sockets it cannot reach (fetch-based EventSource).
 */
export class CutProxy {
  cuts = 0;
  private constructor(
    private readonly server: net.Server,
    private readonly pairs: Set<[net.Socket, net.Socket]>,
  ) {}

  static async start(backend: string): Promise<CutProxy> {
    const target = new URL(backend);
    const pairs = new Set<[net.Socket, net.Socket]>();
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      pairs.add(pair);
      const done = () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', done).on('close', done);
      upstream.on('error', done).on('close', done);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    const proxy = new CutProxy(server, pairs);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Destroys `n` random open connections. */
  cutRandom(n: number): number {
    const open = [...this.pairs];
    let cut = 0;
    for (let i = 0; i < n && open.length; i++) {
      const [pair] = open.splice(Math.floor(Math.random() * open.length), 1);
      pair[0].destroy();
      pair[1].destroy();
      this.pairs.delete(pair);
      cut++;
    }
    this.cuts += cut;
    return cut;
  }

  async close(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    this.pairs.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
