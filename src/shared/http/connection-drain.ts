import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Keep-alive connections during a graceful stop. `server.close()` stops accepting and closes the connections that are
 * idle at that moment, but a client that keeps a pooled connection busy would go on sending requests over it (and
 * keep the process alive) until the grace period ran out. From the start of shutdown, every response whose headers
 * are not out yet carries `Connection: close` (Node then closes the connection after it), and a connection whose
 * response had already started is closed as soon as that response is done and no next request has begun.
 */
export class ConnectionDrain {
  private draining = false;
  private readonly open = new Set<ServerResponse>();

  constructor(private readonly server: Server) {
    // Ahead of the application's listener, so the header is set before any handler can write.
    server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
      if (this.draining) {
        this.closeAfter(res);
        return;
      }
      this.open.add(res);
      res.once('close', () => this.open.delete(res));
    });
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Called once shutdown begins, before the server stops listening. */
  begin(): void {
    if (this.draining) return;
    this.draining = true;
    for (const res of this.open) this.closeAfter(res);
    this.open.clear();
  }

  private closeAfter(res: ServerResponse): void {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    // A response that said keep-alive (or a handler that overrode the header): close its connection once it is idle.
    res.once('finish', () => setImmediate(() => this.server.closeIdleConnections()));
  }
}
