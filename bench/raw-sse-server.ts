import http, { type ServerResponse } from 'node:http';

/** The practical limit for Node: a bare node:http SSE server writing one preformatted string to each response. */
export interface RawSseServer {
  url: string;
  size(): number;
  publish(frame: string): void;
  close(): Promise<void>;
}

export function startRawSseServer(): Promise<RawSseServer> {
  const clients = new Set<ServerResponse>();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    res.write(': connected\n\n');
    clients.add(res);
    req.on('close', () => clients.delete(res));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}/`,
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
  });
}
