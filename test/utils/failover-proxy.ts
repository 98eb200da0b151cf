import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A tiny HTTP reverse proxy for fault tests (node:http only): each request goes to the first backend, in order,
 * that accepts the connection; a refused connection fails over to the next one. Responses, SSE streams included,
 * are piped through unbuffered. When a backend dies mid-response the client's connection is destroyed, as a load
 * balancer would, so clients see the loss and reconnect.
 */
export class FailoverProxy {
  /** `backend url → number of requests it answered`, for assertions. */
  readonly served = new Map<string, number>();
  /** While true, every request is answered 503 (as a balancer with no healthy backend would), none forwarded. */
  unavailable = false;
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly backends: string[]) {
    this.server = http.createServer((req, res) => this.forward(req, res));
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
  }

  static async start(backends: string[]): Promise<FailoverProxy> {
    const proxy = new FailoverProxy(backends);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Reads the (small) request body first, so a refused attempt can be replayed on the next backend. */
  private forward(req: IncomingMessage, res: ServerResponse): void {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.once('end', () => this.attempt(req, res, Buffer.concat(body), 0));
  }

  private attempt(req: IncomingMessage, res: ServerResponse, body: Buffer, index: number): void {
    if (this.unavailable) {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '5' }).end('No healthy backend');
      return;
    }
    const backend = this.backends[index];
    if (!backend) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('No backend reachable');
      return;
    }
    const target = new URL(req.url ?? '/', backend);
    const upstream = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host }, agent: false });
    upstream.on('response', (up) => {
      this.served.set(backend, (this.served.get(backend) ?? 0) + 1);
      res.writeHead(up.statusCode ?? 502, up.headers);
      res.flushHeaders();
      up.on('data', (chunk: Buffer) => res.write(chunk));
      up.once('end', () => {
        // A backend killed mid-response closes without completing the message: cut the client off so it notices.
        if (up.complete) res.end();
        else res.destroy();
      });
      up.once('error', () => res.destroy());
      up.once('close', () => {
        if (!up.complete) res.destroy();
      });
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' && !res.headersSent) this.attempt(req, res, body, index + 1);
      else if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'content-type': 'text/plain' }).end('Bad gateway');
    });
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  }

  /** Cuts every client connection (open streams included), as a restarting balancer would. */
  cutAll(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
