import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** The practical limit for Node: a bare node:http SSE server writing one preformatted string to each response. */
export interface RawSseServer {
  url: string;
  size(): number;
  publish(frame: string): void;
  close(): Promise<void>;
}

/**
 * The bare fan-out: `accept` answers a request as an SSE stream and keeps its response; `listen` starts `server` and
 * returns the handle, whose `publish` writes a frame to every kept response. Shared by the raw node:http server and
 * the bare Express one (bench/framework-sse-server.ts).
 */
export function rawSseFanout(): { accept(req: IncomingMessage, res: ServerResponse): void; listen(server: Server, path: string): Promise<RawSseServer> } {
  const clients = new Set<ServerResponse>();
  return {
    accept(req, res) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
      res.write(': connected\n\n');
      clients.add(res);
      req.on('close', () => clients.delete(res));
    },
    listen: (server, path) =>
      new Promise((resolve) => {
        server.listen(0, '127.0.0.1', () => {
          const { port } = server.address() as { port: number };
          resolve({
            url: `http://127.0.0.1:${port}${path}`,
            size: () => clients.size,
            publish: (frame) => {
              for (const c of clients) c.write(frame);
            },
            close: () =>
              new Promise((r) => {
                for (const c of clients) c.destroy();
                server.close(() => r());
              }),
          });
        });
      }),
  };
}

export function startRawSseServer(): Promise<RawSseServer> {
  const fanout = rawSseFanout();
  return fanout.listen(http.createServer(fanout.accept), '/');
}
